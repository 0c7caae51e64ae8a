package org.carla.leaderboard.podruntime.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.localstack.process.FreePort;
import org.carla.leaderboard.localstack.standin.StandInRoutes;
import org.carla.leaderboard.podruntime.fixture.OtherUser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pod's containers as the different users they are in the Job (install, init, CARLA's image, the participant's
 * image, logcopy), over volumes as open as an emptyDir: what one container writes, the others read, write next to or
 * run. Needs root to switch users ({@code setpriv}); skipped elsewhere.
 */
class SharedVolumeIT {

    private static final int INSTALL = 1100;
    private static final int INIT = 1101;
    private static final int SIMULATOR = 1102;
    private static final int AGENT = 1103;
    private static final int LOGCOPY = 1104;
    private static final Duration RUN = Duration.ofSeconds(60);

    @TempDir
    Path temp;

    @BeforeAll
    static void asRoot() {
        assumeTrue(OtherUser.available(), "needs root and setpriv to run the containers as other users");
    }

    /** A volume as the kubelet makes an emptyDir: root's, open to everyone. */
    private Path volume(String name) throws Exception {
        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path volume = Files.createDirectory(temp.resolve(name));
        Files.setPosixFilePermissions(volume, PosixFilePermissions.fromString("rwxrwxrwx"));
        return volume;
    }

    private Process start(int user, Map<String, String> env, String out, String... args) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(OtherUser.as(user, Pod.podRuntime(args))).redirectErrorStream(true)
                .redirectOutput(temp.resolve(out).toFile());
        builder.environment().putAll(env);
        return builder.start();
    }

    @Test
    void whatOneContainerWritesInTheLogsVolumeTheOthersRead() throws Exception {
        Path logs = volume("logs");
        Map<String, String> initEnv = Map.of("LOGS_DIR", logs.toString(), "WORKER_PAIRS", "1");
        assertThat(Pod.exit(start(INIT, initEnv, "init.out", "init"), RUN)).as("init").isZero();

        int carlaPort = FreePort.forALaterBind();
        String carla = Pod.JAVA + " -Xmx64m -cp " + Path.of("..", "local-stack", "target", "classes").toAbsolutePath()
                .normalize() + " org.carla.leaderboard.localstack.standin.CarlaServerStandIn -carla-rpc-port={port}";
        Path routes = StandInRoutes.write(temp.resolve("routes.xml"), LeaderboardVersion.V2_0, StandInRoutes.ids(0, 1));
        Map<String, String> pair = Map.ofEntries(Map.entry("WORKER_ID", "1"),
                Map.entry("CARLA_PORT", Integer.toString(carlaPort)), Map.entry("LOGS_DIR", logs.toString()),
                Map.entry("PARTNER_WAIT", "PT30S"), Map.entry("STOP_GRACE", "2"),
                Map.entry("CARLA_ROOT", temp.toString()), Map.entry("CARLA_SERVER_COMMAND", carla),
                // an evaluator that ends at once without results: the agent crashes, the simulator follows
                Map.entry("EVALUATOR_COMMAND", "/bin/true"), Map.entry("TEAM_AGENT", "agent.py"),
                Map.entry("LEADERBOARD_VERSION", "2.0"), Map.entry("ROUTES", routes.toString()));
        Process simulator = start(SIMULATOR, pair, "simulator.out", "simulator");
        Process agent = start(AGENT, pair, "agent.out", "agent");
        assertThat(Pod.exit(agent, RUN)).as("agent").isEqualTo(1);
        assertThat(Pod.exit(simulator, RUN)).as("simulator").isEqualTo(1);

        List<String> written = List.of("containers-status/agent-1.crash0", "containers-status/simulator-1.crash0",
                "containers-status/agent-1.start0", "containers-status/simulator-1.start0",
                "agent/agent1/leaderboard.log", "simulator/simulator1.log");
        for (String file : written) {
            assertThat(logs.resolve(file)).exists();
            OtherUser.Result read = OtherUser.run(LOGCOPY, "cat", logs.resolve(file).toString());
            assertThat(read.exit()).as("logcopy reads " + file + ": " + read.output()).isZero();
        }
        // logcopy writes its own files next to theirs (logcopy.done, the merged checkpoint, EvalAI's files)
        for (String folder : List.of("containers-status", "logcopy", "evalai", "")) {
            Path file = logs.resolve(folder).resolve("written-by-logcopy");
            OtherUser.Result write = OtherUser.run(LOGCOPY, "touch", file.toString());
            assertThat(write.exit()).as("logcopy writes in /" + folder + ": " + write.output()).isZero();
        }
    }

    @Test
    void whatInstallPutsInTheVolumeEveryContainerRuns() throws Exception {
        Path volume = volume("pod-runtime");

        assertThat(Pod.exit(start(INSTALL, Map.of(), "install.out", "install", volume.toString()), RUN)).isZero();

        Process help = new ProcessBuilder(OtherUser.as(AGENT, List.of(volume.resolve("pod-runtime").toString(),
                "--help"))).directory(temp.toFile()).redirectErrorStream(true).start();
        String output = new String(help.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(Pod.exit(help, RUN)).as(output).isZero();
        assertThat(output).contains("simulator").contains("agent");
    }
}
