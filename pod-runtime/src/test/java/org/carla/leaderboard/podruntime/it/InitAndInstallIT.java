package org.carla.leaderboard.podruntime.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.carla.leaderboard.domain.ledger.EntryChanges;
import org.carla.leaderboard.domain.ledger.EntryState;
import org.carla.leaderboard.domain.ledger.ExpectedDuration;
import org.carla.leaderboard.domain.ledger.RetryBudget;
import org.carla.leaderboard.domain.ledger.RouteLedgerTable;
import org.carla.leaderboard.domain.ledger.Schedule;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.standin.StandInRoutes;
import org.carla.leaderboard.podruntime.ledger.RouteLedger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code init} against S3Proxy (fresh, resumed, failed download) and DynamoDB Local (the route ledger), and
 * {@code install}; the jar, or the native executable under {@code -Pnative}.
 */
class InitAndInstallIT {

    /** Leaderboard 2.0's bucket, as deploy/aws names it. */
    private static String bucket;
    private static final Duration RUN = Duration.ofSeconds(60);
    private static RunningStack stack;

    @TempDir
    Path temp;

    @BeforeAll
    static void startS3() {
        // Kept under target/, like a service's test stack: e2e's PermissionsUsedIT reads the gates' decisions there.
        stack = LocalStack.builder().components("s3", "dynamodb")
                .workDir(Path.of("target/local-stack/init-and-install-it-" + System.nanoTime())).start();
        bucket = stack.evaluation().leaderboards().get("leaderboard-20").bucket();
    }

    @AfterAll
    static void stopS3() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void aFreshInitCopiesTheLeaderboardFoldersAndLaysOutAnOpenLogsVolume() throws Exception {
        Path leaderboard = Files.createDirectories(temp.resolve("image/leaderboard/leaderboard"));
        Files.writeString(leaderboard.resolve("leaderboard_evaluator.py"), "print('official')\n");
        Path scenarioRunner = Files.createDirectories(temp.resolve("image/scenario_runner/srunner"));
        Files.writeString(scenarioRunner.resolve("__init__.py"), "");
        Path pythonApi = Files.createDirectories(temp.resolve("image/CARLA/PythonAPI"));
        Files.writeString(pythonApi.resolve("carla.egg"), "egg");
        Path leaderboardVolume = Files.createDirectories(temp.resolve("volumes/leaderboard/leaderboard"));
        Files.writeString(leaderboardVolume.resolve("leaderboard_evaluator.py"), "print('tampered')\n");

        Map<String, String> env = new HashMap<>(Map.of(
                "WORKER_PAIRS", "2", "SUBMISSION_ID", "fresh-1", "LOGS_DIR", temp.resolve("logs").toString(),
                "LEADERBOARD_ROOT", temp.resolve("image/leaderboard").toString(),
                "SCENARIO_RUNNER_ROOT", temp.resolve("image/scenario_runner").toString(),
                "CARLA_PYTHON_API_ROOT", temp.resolve("image/CARLA").toString(),
                "LEADERBOARD_VOLUME", temp.resolve("volumes/leaderboard").toString(),
                "SCENARIO_RUNNER_VOLUME", temp.resolve("volumes/scenario_runner").toString(),
                "CARLA_PYTHON_API_VOLUME", temp.resolve("volumes/CARLA").toString()));

        assertThat(run("init", env)).isZero();

        assertThat(Files.readString(temp.resolve("volumes/leaderboard/leaderboard/leaderboard_evaluator.py")))
                .isEqualTo("print('official')\n");
        assertThat(temp.resolve("volumes/scenario_runner/srunner/__init__.py")).exists();
        assertThat(temp.resolve("volumes/CARLA/PythonAPI/carla.egg")).hasContent("egg");
        for (String folder : List.of("agent/agent1", "agent/agent2", "simulator", "logcopy", "containers-status", "evalai")) {
            Path path = temp.resolve("logs").resolve(folder);
            assertThat(path).isDirectory();
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path))).isEqualTo("rwxrwxrwx");
        }
    }

    @Test
    void aResumedInitDeletesTheOldStatusFilesInS3AndDownloadsTheRest() throws Exception {
        String id = "resumed-" + temp.getFileName().toString().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        put(id + "/agent/agent1/agent_results.json", "{\"entry_status\": \"Crashed\"}");
        put(id + "/agent/agent1/leaderboard.log", "route 0\nroute 1\n");
        put(id + "/evalai/results.json", "[]");
        put(id + "/containers-status/agent-1.crash0", "");
        put(id + "/containers-status/simulator-1.crash0", "");
        put(id + "/control/cancel", "");
        put("other-submission/containers-status/agent-1.done", "");
        Path logs = temp.resolve("logs");

        assertThat(run("init", resumeEnv(id, logs, bucket))).isZero();

        assertThat(keys(id + "/")).containsExactlyInAnyOrder(id + "/agent/agent1/agent_results.json",
                id + "/agent/agent1/leaderboard.log", id + "/evalai/results.json", id + "/control/cancel",
                id + "/control/versions-run-1.json");
        assertThat(logs.resolve("control")).as("the relay's control objects are not the volume's").doesNotExist();
        assertThat(keys("other-submission/")).hasSize(1);
        assertThat(logs.resolve("agent/agent1/leaderboard.log")).hasContent("route 0\nroute 1\n");
        assertThat(logs.resolve("evalai/results.json")).hasContent("[]");
        assertThat(logs.resolve("containers-status")).isEmptyDirectory();
        assertThat(logs.resolve("agent/agent2")).isDirectory();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(logs.resolve("agent/agent1/agent_results.json"))))
                .isEqualTo("rw-rw-rw-");
    }

    @Test
    void aPodThatReplacesOneOfItsRunResumesFromTheRunsFilesThoughResumeIsUnset() throws Exception {
        String id = "replaced-" + temp.getFileName().toString().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        put(id + "/agent/agent1/agent_results.json", "{\"entry_status\": \"Started\"}");
        put(id + "/containers-status/agent-2.done", "");
        Path logs = temp.resolve("logs");
        Map<String, String> env = resumeEnv(id, logs, bucket);
        env.put("RESUME", "false");
        env.put("RUN", "3");
        // The Leaderboard image as its Dockerfile lays it out, a checkout with its .git.
        Path image = temp.resolve("image");
        Files.createDirectories(image.resolve("leaderboard/.git/refs/heads"));
        Files.writeString(image.resolve("leaderboard/.git/HEAD"), "ref: refs/heads/leaderboard-2.0\n");
        Files.writeString(image.resolve("leaderboard/.git/refs/heads/leaderboard-2.0"),
                "0123456789abcdef0123456789abcdef01234567\n");
        Files.createDirectories(image.resolve("scenario_runner"));
        Files.writeString(image.resolve("scenario_runner/scenario_runner.py"), "VERSION = '0.9.13'\n");
        Files.createDirectories(image.resolve("CARLA/PythonAPI/carla/dist"));
        Files.writeString(image.resolve("CARLA/PythonAPI/carla/dist/carla-0.9.15-py3.7-linux-x86_64.egg"), "");
        env.putAll(Map.of("LEADERBOARD_ROOT", image.resolve("leaderboard").toString(),
                "SCENARIO_RUNNER_ROOT", image.resolve("scenario_runner").toString(),
                "CARLA_PYTHON_API_ROOT", image.resolve("CARLA").toString(),
                "LEADERBOARD_VOLUME", temp.resolve("volumes/leaderboard").toString(),
                "SCENARIO_RUNNER_VOLUME", temp.resolve("volumes/scenario_runner").toString(),
                "CARLA_PYTHON_API_VOLUME", temp.resolve("volumes/CARLA").toString(),
                "VERSIONS_DIR", Files.createDirectories(temp.resolve("volumes/versions")).toString()));
        // Before it, carla-version in the simulator's image (CARLA's package: its VERSION at the root).
        Path carla = Files.createDirectories(temp.resolve("carla-image/home/carla"));
        Files.writeString(carla.resolve("VERSION"), "0.9.15\n");
        assertThat(run("carla-version", Map.of("CARLA_ROOT", carla.toString(), "VERSIONS_DIR",
                temp.resolve("volumes/versions").toString()))).isZero();
        assertThat(run("carla-version", Map.of("CARLA_ROOT", carla.toString())))
                .as("no versions volume: a Job built wrong").isEqualTo(2);

        assertThat(run("init", env)).isZero();

        assertThat(logs.resolve("agent/agent1/agent_results.json")).hasContent("{\"entry_status\": \"Started\"}");
        assertThat(keys(id + "/")).containsExactly(id + "/agent/agent1/agent_results.json",
                id + "/control/versions-run-3.json");
        assertThat(stack.s3().getObjectAsBytes(r -> r.bucket(bucket).key(id + "/control/versions-run-3.json"))
                .asUtf8String()).as("what run 3 drives with, where no file of the pod can overwrite it").isEqualTo(
                        "{\"run\":3,\"leaderboard\":\"0123456789abcdef0123456789abcdef01234567\","
                                + "\"scenario_runner\":\"0.9.13\",\"carla_python_api\":\"0.9.15\","
                                + "\"carla_server\":\"0.9.15\"}");
        assertThat(logs.resolve("containers-status")).isEmptyDirectory();

        String fresh = id + "-fresh";
        Path freshLogs = temp.resolve("fresh-logs");
        Map<String, String> freshEnv = resumeEnv(fresh, freshLogs, bucket);
        freshEnv.put("RESUME", "false");
        assertThat(run("init", freshEnv)).as("a run's first pod: nothing in S3, nothing to resume").isZero();
        assertThat(freshLogs.resolve("agent/agent1")).isEmptyDirectory();
    }

    @Test
    void aFailedDownloadFailsTheContainerAndLeavesNothingBehind() throws Exception {
        Path logs = temp.resolve("logs");

        assertThat(run("init", resumeEnv("any", logs, "no-such-bucket"))).isNotZero();

        try (Stream<Path> left = Files.exists(logs) ? Files.list(logs) : Stream.empty()) {
            assertThat(left).as("nothing partial in the logs volume").isEmpty();
        }
    }

    @Test
    void withALedgerTableInitMakesTheRunsLedgerAndASecondPodKeepsTheFirstOnes() throws Exception {
        String id = "ledger-" + temp.getFileName().toString().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        List<String> routeIds = StandInRoutes.ids(31, 3);
        Path routes = StandInRoutes.write(temp.resolve("image/leaderboard/data/routes_testing.xml"),
                LeaderboardVersion.V2_0, routeIds);
        String track = "SENSORS-" + id;
        var recorded = new RouteLedger(stack.dynamoDb(), RouteLedgerTable.DEFAULT_NAME, "unused",
                new EntryChanges(EntryChanges.DEFAULT_LEASE, RetryBudget.of(0), Clock.systemUTC()), Clock.systemUTC());
        recorded.recordDuration(RouteLedgerTable.trackPartition("leaderboard-20", track), "32", 4321);
        Map<String, String> env = ledgerEnv(id, routes, track);

        assertThat(run("init", env)).isZero();
        env.put("SCHEDULE", "static");
        env.put("LOGS_DIR", temp.resolve("logs-of-pod-2").toString());
        assertThat(run("init", env)).as("the run's second pod").isZero();

        String partition = RouteLedgerTable.ledgerPartition("leaderboard-20", id, 2);
        var ledger = new RouteLedger(stack.dynamoDb(), RouteLedgerTable.DEFAULT_NAME, partition,
                new EntryChanges(EntryChanges.DEFAULT_LEASE, RetryBudget.of(0), Clock.systemUTC()), Clock.systemUTC())
                .read();
        assertThat(ledger.run()).hasValueSatisfying(run -> {
            assertThat(run.total()).isEqualTo(6);
            assertThat(run.schedule()).as("the first pod's").isEqualTo(Schedule.DYNAMIC);
            assertThat(run.pods()).isEqualTo(2);
            assertThat(run.pairsPerPod()).isEqualTo(1);
        });
        assertThat(ledger.entries()).extracting(entry -> entry.key().text()).containsExactlyInAnyOrder("31#0", "31#1",
                "32#0", "32#1", "33#0", "33#1");
        assertThat(ledger.entries()).allSatisfy(entry -> assertThat(entry.state()).isEqualTo(EntryState.OPEN));
        assertThat(ledger.entries()).filteredOn(entry -> entry.key().routeId().equals("32"))
                .allSatisfy(entry -> assertThat(entry.expectedSeconds()).as("the track's record").isEqualTo(4321));
        assertThat(ledger.entries()).filteredOn(entry -> !entry.key().routeId().equals("32")).allSatisfy(entry ->
                assertThat(entry.expectedSeconds()).as("its length at the nominal speed")
                        .isEqualTo(entry.lengthMetres() / ExpectedDuration.NOMINAL_SPEED).isPositive());
    }

    @Test
    void aRoutesFileThatDoesNotHoldTheRunsRoutesIsABadConfigurationAndMakesNoLedger() throws Exception {
        String id = "bad-ledger-" + temp.getFileName().toString().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        Path routes = StandInRoutes.write(temp.resolve("image/leaderboard/data/routes_testing.xml"),
                LeaderboardVersion.V2_0, StandInRoutes.ids(31, 3));
        Map<String, String> env = ledgerEnv(id, routes, "SENSORS");
        env.put("EXPECTED_ROUTES", "20");

        assertThat(run("init", env)).isEqualTo(2);
        assertThat(Files.readString(temp.resolve("init.out"))).contains("holds 3 routes × 2 repetitions, the run "
                + "expects 20 route records (EXPECTED_ROUTES)");
        assertThat(stack.dynamoDb().query(r -> r.tableName(RouteLedgerTable.DEFAULT_NAME)
                .keyConditionExpression("ledger = :l").expressionAttributeValues(Map.of(":l", AttributeValue.fromS(
                        RouteLedgerTable.ledgerPartition("leaderboard-20", id, 2))))).count()).isZero();
    }

    @Test
    void installWritesAnExecutableThatRunsFromAnotherFolder() throws Exception {
        Path volume = temp.resolve("opt/pod-runtime");

        assertThat(run("install", Map.of(), volume.toString())).isZero();

        Path launcher = volume.resolve("pod-runtime");
        assertThat(Files.isExecutable(launcher)).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(launcher))).isEqualTo("rwxr-xr-x");
        if (Pod.NATIVE.isPresent()) {
            assertThat(launcher).hasSameBinaryContentAs(Pod.NATIVE.get()); // the native executable copies itself
        } else {
            assertThat(Files.readString(launcher)).doesNotContain(temp.toString()); // fixed text, nothing interpolated
        }
        Process help = new ProcessBuilder(launcher.toString(), "--help").directory(temp.toFile())
                .redirectErrorStream(true).start();
        String output = new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(Pod.exit(help, RUN)).isZero();
        assertThat(output).contains("simulator").contains("agent").contains("install").contains("init")
                .contains("carla-version");
    }

    private Map<String, String> resumeEnv(String id, Path logs, String bucket) {
        Map<String, String> env = Pod.awsEnvironment(stack);
        env.putAll(Map.of("RESUME", "1", "S3_BUCKET", bucket, "SUBMISSION_ID", id, "WORKER_PAIRS", "2",
                "LOGS_DIR", logs.toString()));
        return env;
    }

    /** Run 2 of a submission to Leaderboard 2.0 with a route ledger: 2 pods of 1 pair, 2 repetitions. */
    private Map<String, String> ledgerEnv(String id, Path routes, String track) {
        Map<String, String> env = Pod.awsEnvironment(stack);
        env.putAll(Map.of("SUBMISSION_ID", id, "LEADERBOARD", "leaderboard-20", "RUN", "2", "WORKER_PAIRS", "1",
                "PODS", "2", "ROUTES", routes.toString(), "REPETITIONS", "2", "LEDGER_TABLE",
                RouteLedgerTable.DEFAULT_NAME, "CHALLENGE_TRACK_CODENAME", track));
        env.put("LOGS_DIR", temp.resolve("logs").toString());
        env.put("EXPECTED_ROUTES", "6");
        return env;
    }

    private int run(String role, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(Pod.podRuntime(role));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(temp.resolve(role + ".out").toFile());
        builder.environment().putAll(env);
        return Pod.exit(builder.start(), RUN);
    }

    private void put(String key, String content) {
        stack.s3().putObject(r -> r.bucket(bucket).key(key), RequestBody.fromString(content));
    }

    private List<String> keys(String prefix) {
        return stack.s3().listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix)).contents().stream()
                .map(S3Object::key).toList();
    }
}
