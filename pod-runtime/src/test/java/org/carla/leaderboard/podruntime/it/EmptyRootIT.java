package org.carla.leaderboard.podruntime.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.standin.StandInRoutes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The native executable as the Job runs it in images it does not own: fully static, so every role runs in a root that
 * holds nothing but the executable and the role's inputs ({@link EmptyRoot}: no libc, no loader, no shell, no
 * {@code /tmp}), as {@code install} and {@code logcopy} run in pod-runtime's own image ({@code FROM scratch}) and the
 * pair roles in CARLA's and a participant's image, whatever their libc. The AWS SDK's S3 and SQS clients reach the
 * local stack from inside it. Only under {@code -Pnative} (there is no static executable otherwise), as root.
 */
class EmptyRootIT {

    /** Leaderboard 2.0's bucket, as deploy/aws names it. */
    private static String bucket;
    private static final Duration RUN = Duration.ofSeconds(60);
    private static final AtomicLong SUBMISSIONS = new AtomicLong(System.currentTimeMillis() % 1_000_000 * 100 + 7);

    private static RunningStack stack;

    @TempDir
    Path temp;

    @BeforeAll
    static void startStack() {
        Assumptions.assumeTrue(Pod.NATIVE.isPresent(), "no native executable: -Pnative builds it");
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "chroot needs root");
        stack = LocalStack.builder().components("s3", "sqs").start();
        bucket = stack.evaluation().leaderboards().get("leaderboard-20").bucket();
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void theExecutableNeedsNoLoaderAndInstallsItselfIntoTheVolume() throws Exception {
        assertThat(EmptyRoot.needsNoLoader(Pod.NATIVE.get())).as("no PT_INTERP: statically linked").isTrue();
        EmptyRoot root = EmptyRoot.of(temp.resolve("root"), Pod.NATIVE.get());
        Files.createDirectories(root.path("/opt/pod-runtime"));

        assertThat(root.run(Map.of(), temp.resolve("install.out"), RUN, "install", "/opt/pod-runtime"))
                .as(console("install.out")).isZero();

        Path installed = root.path("/opt/pod-runtime/pod-runtime");
        assertThat(installed).hasSameBinaryContentAs(Pod.NATIVE.get());
        Process help = root.startProgram("/opt/pod-runtime/pod-runtime", Map.of(), temp.resolve("help.out"), "--help");
        assertThat(Pod.exit(help, RUN)).as(console("help.out")).isZero();
        assertThat(console("help.out")).contains("simulator").contains("agent").contains("logcopy");
    }

    @Test
    void logcopyMergesUploadsAndReportsTheEnd() throws Exception {
        EmptyRoot root = EmptyRoot.of(temp.resolve("root"), Pod.NATIVE.get());
        long pk = SUBMISSIONS.incrementAndGet();
        ResultsJson.write(root.path("/logs/agent/agent1/agent_results.json"), finished(2));
        Files.createDirectories(root.path("/logs/containers-status"));
        Files.writeString(root.path("/logs/containers-status/" + StatusFiles.done(Role.AGENT, 1)), "");
        Files.writeString(root.path("/logs/containers-status/" + StatusFiles.done(Role.SIMULATOR, 1)), "");
        Map<String, String> env = Pod.awsEnvironment(stack);
        env.putAll(Map.of("LOGS_DIR", "/logs", "S3_BUCKET", bucket, "SUBMISSION_ID", Long.toString(pk),
                "TEAM_ID", "42", "LEADERBOARD", "leaderboard-20", "RUN", "1", "WORKER_PAIRS", "1",
                "EXPECTED_ROUTES", "2", "LOGS_PERIOD", "0.5", "PROGRESS_QUEUE_URL", stack.queueUrl("progress-reports")));
        env.put("RESTART_LIMIT", "3");

        assertThat(root.run(env, temp.resolve("logcopy.out"), RUN, "logcopy")).as(console("logcopy.out")).isZero();

        assertThat(EvalAiFiles.snakeCaseAccuracies(object(pk + "/evalai/results.json")))
                .containsEntry("route_completion", 100.0);
        assertThat(object(pk + "/containers-status/logcopy.done")).isEmpty();
        assertThat(object(pk + "/agent/agent1/agent_results.json"))
                .isEqualTo(Files.readString(root.path("/logs/agent/agent1/agent_results.json")));
        List<Progress> reports = progressOf(pk);
        Progress last = reports.get(reports.size() - 1);
        assertThat(last.ending()).isEqualTo(Progress.Ending.FINISHED);
        assertThat(last.routesDone()).isEqualTo(2);
    }

    @Test
    void initDownloadsAResumedSubmission() throws Exception {
        EmptyRoot root = EmptyRoot.of(temp.resolve("root"), Pod.NATIVE.get());
        String id = Long.toString(SUBMISSIONS.incrementAndGet());
        stack.s3().putObject(r -> r.bucket(bucket).key(id + "/agent/agent1/leaderboard.log"),
                RequestBody.fromString("route 0\n"));
        stack.s3().putObject(r -> r.bucket(bucket).key(id + "/containers-status/agent-1.crash0"),
                RequestBody.empty());
        Files.createDirectories(root.path("/logs"));
        Map<String, String> env = Pod.awsEnvironment(stack);
        env.putAll(Map.of("RESUME", "1", "S3_BUCKET", bucket, "SUBMISSION_ID", id, "WORKER_PAIRS", "1",
                "LOGS_DIR", "/logs"));

        assertThat(root.run(env, temp.resolve("init.out"), RUN, "init")).as(console("init.out")).isZero();

        assertThat(root.path("/logs/agent/agent1/leaderboard.log")).hasContent("route 0\n");
        assertThat(root.path("/logs/containers-status")).isEmptyDirectory();
    }

    /**
     * The pair: the agent waits for CARLA (this test listens on its port), runs its evaluator — a static program, the
     * only one in the root: pod-runtime itself, which refuses the evaluator's options — judges the checkpoint the
     * evaluator left (an input here) and writes its done file; the simulator, started then, answers with its own. Both
     * hold until the pod ends (they are sidecars), and exit 0 on its SIGTERM.
     */
    @Test
    void thePairRolesRunTheirChildrenAndAnswerEachOther() throws Exception {
        EmptyRoot root = EmptyRoot.of(temp.resolve("root"), Pod.NATIVE.get());
        ResultsJson.write(root.path("/logs/agent/agent1/agent_results.json"), finished(2));
        StandInRoutes.write(root.path("/routes.xml"), LeaderboardVersion.V2_0, StandInRoutes.ids(0, 2));
        Files.createDirectories(root.path("/logs/containers-status"));
        Files.createDirectories(root.path("/logs/simulator"));
        try (var carla = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Map<String, String> pair = new HashMap<>(Map.of("WORKER_ID", "1",
                    "CARLA_PORT", Integer.toString(carla.getLocalPort()), "LOGS_DIR", "/logs", "PARTNER_WAIT", "PT30S",
                    "STOP_GRACE", "2"));
            Map<String, String> agentEnv = new HashMap<>(pair);
            agentEnv.putAll(Map.of("EVALUATOR_COMMAND", EmptyRoot.EXECUTABLE, "TEAM_AGENT", "/agent.py",
                    "ROUTES", "/routes.xml", "MAX_IDLE", "30",
                    "LEADERBOARD_VERSION", LeaderboardVersion.V2_0.text(), "EXPECTED_ROUTES", "2"));
            Process agent = root.start(agentEnv, temp.resolve("agent.out"), "agent");
            Path agentDone = root.path("/logs/containers-status/" + StatusFiles.done(Role.AGENT, 1));
            org.awaitility.Awaitility.await().atMost(RUN).until(() -> Files.exists(agentDone) || !agent.isAlive());
            assertThat(agentDone).as(console("agent.out")).exists();

            Map<String, String> simulatorEnv = new HashMap<>(pair);
            simulatorEnv.putAll(Map.of("CARLA_ROOT", "/", "CARLA_SERVER_COMMAND", EmptyRoot.EXECUTABLE));
            Process simulator = root.start(simulatorEnv, temp.resolve("simulator.out"), "simulator");
            Path simulatorDone = root.path("/logs/containers-status/" + StatusFiles.done(Role.SIMULATOR, 1));
            org.awaitility.Awaitility.await().atMost(RUN).until(() -> Files.exists(simulatorDone)
                    || !simulator.isAlive());
            assertThat(simulatorDone).as(console("simulator.out")).exists();
            org.awaitility.Awaitility.await().atMost(RUN).until(() -> console("agent.out").contains("holding")
                    && console("simulator.out").contains("holding"));
            assertThat(List.of(agent.isAlive(), simulator.isAlive())).as("both hold until the pod ends")
                    .containsOnly(true);

            // The pod ends: SIGTERM, last first, to pod-runtime (unshare's child: chroot runs it in its place).
            agent.children().findFirst().orElseThrow().destroy();
            assertThat(Pod.exit(agent, RUN)).as(console("agent.out")).isZero();
            simulator.children().findFirst().orElseThrow().destroy();
            assertThat(Pod.exit(simulator, RUN)).as(console("simulator.out")).isZero();
        }
        assertThat(root.path("/logs/containers-status/" + StatusFiles.start(Role.AGENT, 1, 0))).exists();
        assertThat(Files.readString(root.path("/logs/agent/agent1/leaderboard.log")))
                .as("the evaluator ran: pod-runtime's usage error is its output").contains("Unknown option");
    }

    /** A checkpoint of {@code routes} routes, all driven, with its global record (as the evaluator leaves it). */
    private static CheckpointFile finished(int routes) {
        var records = new ArrayList<RouteRecord>();
        for (int route = 0; route < routes; route++) {
            records.add(new RouteRecord(route, "RouteScenario_" + route + "_rep0", "Completed", 0,
                    RouteRecord.emptyInfractions(), new RouteRecord.Scores(100.0, 0.8, 80.0),
                    new RouteRecord.Meta(1000.0, 50.0, 100.0)));
        }
        var started = CheckpointFile.started(List.of("carla_camera"), List.of(routes, routes), records);
        return CheckpointMerge.merge(List.of(started), OptionalInt.of(routes)).merged();
    }

    private static String object(String key) {
        return stack.s3().getObject(r -> r.bucket(bucket).key(key), ResponseTransformer.toBytes()).asUtf8String();
    }

    private static List<Progress> progressOf(long pk) {
        String queue = stack.queueUrl("progress-reports");
        var found = new ArrayList<Progress>();
        List<Message> batch;
        do {
            batch = stack.sqs().receiveMessage(r -> r.queueUrl(queue).maxNumberOfMessages(10).waitTimeSeconds(1))
                    .messages();
            for (Message message : batch) {
                Progress progress = EventCodec.parseProgress(message.body());
                if (progress.submission().submissionPk() == pk) {
                    found.add(progress);
                }
            }
        } while (!batch.isEmpty());
        found.sort(java.util.Comparator.comparing(Progress::at));
        return found;
    }

    private String console(String file) {
        try {
            Path path = temp.resolve(file);
            return Files.exists(path) ? Files.readString(path, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }
}
