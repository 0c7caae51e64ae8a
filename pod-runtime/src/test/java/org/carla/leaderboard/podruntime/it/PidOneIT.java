package org.carla.leaderboard.podruntime.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.podruntime.fixture.ForkingChild;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pod-runtime as PID 1 of a PID namespace, as in a container ({@code unshare --pid --fork --mount-proc}; needs root,
 * skipped where unshare is not allowed). CARLA is a process that leaves a grandchild behind.
 */
class PidOneIT {

    @TempDir
    Path temp;

    @BeforeAll
    static void unshareWorks() throws Exception {
        Process probe = new ProcessBuilder("unshare", "--pid", "--fork", "--mount-proc", "true").redirectErrorStream(true)
                .start();
        assumeTrue(probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0, "unshare --pid is not allowed here");
    }

    private Process simulatorAsPidOne(Path out, String carlaCommand) throws Exception {
        Files.createDirectories(temp.resolve("logs/containers-status"));
        List<String> command = new ArrayList<>(List.of("unshare", "--pid", "--fork", "--mount-proc"));
        command.addAll(Pod.podRuntime("simulator"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        builder.environment().putAll(Map.of("WORKER_ID", "1", "LOGS_DIR", temp.resolve("logs").toString(),
                "CARLA_ROOT", temp.toString(), "PARTNER_WAIT", "1", "STOP_GRACE", "5", "CARLA_SERVER_COMMAND", carlaCommand));
        return builder.start();
    }

    private static String forkingChild() {
        String testClasses = Path.of("target", "test-classes").toAbsolutePath().toString();
        return Pod.JAVA + " -XX:TieredStopAtLevel=1 -cp " + testClasses + " " + ForkingChild.class.getName();
    }

    @Test
    void sigtermToPidOneStopsTheWholeChildTreeAndExitsPromptly() throws Exception {
        Path out = temp.resolve("simulator.out");
        Process unshare = simulatorAsPidOne(out, forkingChild());
        long grandchild = awaitGrandchild(out);
        // unshare forks pod-runtime (java, or the native executable), which is PID 1 of the namespace
        ProcessHandle pidOne = unshare.children().findFirst().orElseThrow();

        long signalled = System.nanoTime();
        pidOne.destroy();
        assertThat(Pod.exit(unshare, Duration.ofSeconds(30))).isEqualTo(143);
        Reactions.record("SIGTERM → pod-runtime as PID 1 exited (child and grandchild stopped)", System.nanoTime() - signalled);
        assertThat(Files.readString(out)).contains("stopped CARLA, exit 143; reason: SIGTERM received");
        assertThat(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    }

    @Test
    void orphansAdoptedByPidOneDoNotHoldUpTheStopAndAreReported() throws Exception {
        Path out = temp.resolve("simulator.out");
        // timeout kills its child after 2 s and exits: the grandchild is orphaned and adopted by pod-runtime
        Process unshare = simulatorAsPidOne(out, "timeout -s KILL 2 " + forkingChild());

        assertThat(Pod.exit(unshare, Duration.ofSeconds(60))).isEqualTo(1);
        String console = Files.readString(out, StandardCharsets.UTF_8);
        // no SIGKILL: the stop did not wait its grace (STOP_GRACE 5 s) for the zombies, which have ended
        assertThat(console).contains("reason: CARLA exited with code 137").doesNotContain("SIGKILL")
                .contains("orphaned zombie process(es) adopted by pod-runtime");
    }

    private static long awaitGrandchild(Path out) {
        Pattern pattern = Pattern.compile("grandchild (\\d+)");
        Matcher started = await("CARLA starting its grandchild").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> pattern.matcher(Files.exists(out) ? Files.readString(out) : ""), Matcher::find);
        return hostPid(Long.parseLong(started.group(1)));
    }

    /** The grandchild printed its pid inside the namespace; find the host pid of that `sleep 300`. */
    private static long hostPid(long namespacePid) {
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains("sleep 300"))
                .filter(p -> {
                    try {
                        String status = Files.readString(Path.of("/proc", Long.toString(p.pid()), "status"));
                        return status.lines().anyMatch(l -> l.startsWith("NSpid:") && l.trim().endsWith("\t" + namespacePid)
                                || l.startsWith("NSpid:") && l.trim().endsWith(" " + namespacePid));
                    } catch (Exception e) {
                        return false;
                    }
                }).mapToLong(ProcessHandle::pid).findFirst().orElseThrow();
    }
}
