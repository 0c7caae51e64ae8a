package org.carla.leaderboard.localstack.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.localstack.evalai.EvalAiOptions;
import org.carla.leaderboard.localstack.evalai.EvalAiStandIn;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvaluatorStandInTests {

    @TempDir
    Path temp;

    private CarlaServerStandIn carla;

    @AfterEach
    void stopCarla() throws Exception {
        if (carla != null) {
            carla.close();
        }
    }

    private void startCarla(Optional<Duration> dieAfter) throws Exception {
        CarlaServerStandIn.Knobs knobs = new CarlaServerStandIn.Knobs(Duration.ZERO, dieAfter, false, Optional.empty());
        CarlaServerStandIn[] self = new CarlaServerStandIn[1];
        carla = CarlaServerStandIn.start(0, knobs, () -> {
            try {
                self[0].close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).inBackground();
        self[0] = carla;
    }

    private List<String> args(Path checkpoint, String subset, boolean resume) {
        var args = new ArrayList<>(List.of("--port=" + carla.port(), "--traffic-manager-port=8010", "--agent=/agent.py",
                "--track=SENSORS", "--routes=" + RouteSelectionTests.DEMO, "--routes-subset=" + subset,
                "--repetitions=2", "--checkpoint=" + checkpoint, "--debug-checkpoint=" + temp.resolve("live.txt"),
                "--record="));
        if (resume) {
            args.add("--resume=1");
        }
        return args;
    }

    private static int run(List<String> args, Map<String, String> env) throws Exception {
        return EvaluatorStandIn.of(LeaderboardVersion.V2_0, args, env).run();
    }

    /** The evaluator run on another thread, as the test goes on (its exit code when it ends). */
    private static CompletableFuture<Integer> runInBackground(List<String> args, Map<String, String> env) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return run(args, env);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static Map<String, String> env(String... pairs) {
        Map<String, String> env = new HashMap<>(Map.of("EVALUATOR_STANDIN_ROUTE_SECONDS", "0.1", "SUBMISSION_ID", "42"));
        for (int i = 0; i < pairs.length; i += 2) {
            env.put(pairs[i], pairs[i + 1]);
        }
        return env;
    }

    @Test
    void aFullRunWritesTheRecordsAndTheGlobalRecordAndTwoRunsAgree() throws Exception {
        startCarla(Optional.empty());
        Path first = temp.resolve("first.json");
        Path second = temp.resolve("second.json");

        assertThat(run(args(first, "1-2", false), env())).isZero();
        assertThat(run(args(second, "1-2", false), env())).isZero();

        CheckpointFile results = ResultsJson.read(first);
        assertThat(results.hasGlobalRecord()).isTrue();
        assertThat(results.entryStatus()).isEqualTo("Finished");
        assertThat(results.eligible()).isTrue();
        assertThat(results.values()).hasSize(15);
        assertThat(results.sensors()).contains("carla_camera", "carla_lidar");
        assertThat(results.checkpoint().progress()).containsExactly(4, 4);
        assertThat(results.checkpoint().records()).extracting(RouteRecord::routeId).containsExactly(
                "RouteScenario_1_rep0", "RouteScenario_1_rep1", "RouteScenario_2_rep0", "RouteScenario_2_rep1");
        assertThat(results.checkpoint().records()).extracting(RouteRecord::index).containsExactly(0, 1, 2, 3);
        assertThat(Files.readString(second)).isEqualTo(Files.readString(first));
    }

    @Test
    void anotherSeedGivesOtherScores() throws Exception {
        startCarla(Optional.empty());
        Path a = temp.resolve("a.json");
        Path b = temp.resolve("b.json");
        run(args(a, "0-7", false), env("EVALUATOR_STANDIN_ROUTE_SECONDS", "0"));
        run(args(b, "0-7", false), env("EVALUATOR_STANDIN_ROUTE_SECONDS", "0", "EVALUATOR_STANDIN_SEED", "other"));

        assertThat(ResultsJson.read(a).checkpoint().records()).isNotEqualTo(ResultsJson.read(b).checkpoint().records());
    }

    @Test
    void carlaGoingAwayIsASimulationCrashAndResumeRepeatsOnlyThatRoute() throws Exception {
        startCarla(Optional.empty());
        Path checkpoint = temp.resolve("agent_results.json");
        var driving = runInBackground(args(checkpoint, "0-7", false), env("EVALUATOR_STANDIN_ROUTE_SECONDS", "0.2"));

        // CARLA goes away once three routes are in the checkpoint, however slow the machine
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> ResultsJson.read(checkpoint).checkpoint().progress().get(0) >= 3);
        carla.close();
        assertThat(driving.get(30, TimeUnit.SECONDS)).isEqualTo(EvaluatorStandIn.CRASHED_EXIT_CODE);
        CheckpointFile crashed = ResultsJson.read(checkpoint);
        assertThat(crashed.entryStatus()).isEqualTo("Crashed");
        assertThat(crashed.hasGlobalRecord()).isFalse();
        List<RouteRecord> before = crashed.checkpoint().records();
        assertThat(before).hasSizeBetween(4, 15);
        assertThat(before.get(before.size() - 1).status()).isEqualTo("Failed - Simulation crashed");
        assertThat(crashed.checkpoint().progress()).containsExactly(before.size(), 16);

        startCarla(Optional.empty());
        assertThat(run(args(checkpoint, "0-7", true), env("EVALUATOR_STANDIN_ROUTE_SECONDS", "0"))).isZero();

        CheckpointFile resumed = ResultsJson.read(checkpoint);
        assertThat(resumed.hasGlobalRecord()).isTrue();
        assertThat(resumed.checkpoint().records()).hasSize(16)
                .startsWith(before.subList(0, before.size() - 1).toArray(RouteRecord[]::new));
        assertThat(resumed.checkpoint().records().get(before.size() - 1).status()).doesNotContain("Simulation crashed");
    }

    @Test
    void invalidSensorsRejectTheEntryAndStop() throws Exception {
        startCarla(Optional.empty());
        Path checkpoint = temp.resolve("agent_results.json");

        assertThat(run(args(checkpoint, "0-1", false), env("EVALUATOR_STANDIN_INVALID_SENSORS", "true")))
                .isEqualTo(EvaluatorStandIn.CRASHED_EXIT_CODE);

        CheckpointFile results = ResultsJson.read(checkpoint);
        assertThat(results.entryStatus()).isEqualTo("Rejected");
        assertThat(results.checkpoint().records()).singleElement()
                .extracting(RouteRecord::status).isEqualTo("Failed - Agent's sensors were invalid");
    }

    @Test
    void theKillKnobSigkillsItsSupervisorAndItselfOnceTheEarlierRoutesAreInTheCheckpoint() throws Exception {
        startCarla(Optional.empty());
        Path checkpoint = temp.resolve("agent_results.json");
        Path survived = temp.resolve("survived");
        Path once = temp.resolve("killed-once");
        // The supervisor stands in for pod-runtime: it would write something once its child ended, if it lived.
        List<String> supervisor = new ArrayList<>(List.of("/bin/sh", "-c", "\"$@\"; echo $? > " + survived,
                "supervisor", ProcessHandle.current().info().command().orElse("java"), "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), EvaluatorStandIn.class.getName(),
                EvaluatorScript.write(temp, LeaderboardVersion.V2_0).toString()));
        supervisor.addAll(args(checkpoint, "0-3", false));
        var builder = new ProcessBuilder(supervisor).redirectErrorStream(true)
                .redirectOutput(temp.resolve("supervisor.log").toFile());
        builder.environment().putAll(env("EVALUATOR_STANDIN_ROUTE_SECONDS", "0.1",
                EvaluatorStandIn.KILL_AGENT_AT_ROUTE, "2", "EVALUATOR_STANDIN_FAIL_ONCE_MARKER", once.toString()));

        Process first = builder.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> first.children().findAny().isPresent() || !first.isAlive());
        List<ProcessHandle> evaluator = first.children().toList();

        assertThat(first.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(first.exitValue()).as("the supervisor died of SIGKILL").isEqualTo(137);
        await().atMost(Duration.ofSeconds(10)).until(() -> evaluator.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(survived).doesNotExist();
        CheckpointFile killed = ResultsJson.read(checkpoint);
        assertThat(killed.checkpoint().records()).extracting(RouteRecord::routeId)
                .containsExactly("RouteScenario_0_rep0", "RouteScenario_0_rep1", "RouteScenario_1_rep0",
                        "RouteScenario_1_rep1");
        assertThat(killed.hasGlobalRecord()).isFalse();
        assertThat(once).exists();

        Process second = builder.start();
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(survived).content().isEqualToIgnoringNewLines("0");
        assertThat(ResultsJson.read(checkpoint).hasGlobalRecord()).isTrue();
    }

    @Test
    void aHostileParticipantClaimsEveryRouteWithoutDriving() throws Exception {
        Path checkpoint = temp.resolve("agent_results.json");
        List<String> noCarla = List.of("--port=1", "--agent=/agent.py", "--routes=" + RouteSelectionTests.DEMO,
                "--routes-subset=0-3", "--checkpoint=" + checkpoint);

        assertThat(run(noCarla, env(HostileParticipant.KNOB, "claim-all-routes"))).isZero();

        CheckpointFile claimed = ResultsJson.read(checkpoint);
        assertThat(claimed.checkpoint().records()).hasSize(4).allSatisfy(record -> {
            assertThat(record.status()).isEqualTo("Completed");
            assertThat(record.scores().scoreComposed()).isEqualTo(100.0);
        });
        assertThat(claimed.checkpoint().progress()).containsExactly(4, 4);
        assertThat(claimed.entryStatus()).isEqualTo("Finished");
    }

    @Test
    void aHostileParticipantsNumbersAndIdsAreWrittenAsPythonWouldWriteThem() throws Exception {
        startCarla(Optional.empty());
        Path checkpoint = temp.resolve("agent_results.json");

        assertThat(run(args(checkpoint, "0-1", false), env(HostileParticipant.KNOB, "score-nan,route-id-control-chars")))
                .isZero();

        String text = Files.readString(checkpoint);
        assertThat(text).contains("\"score_composed\": NaN").contains("\"route_id\": \"RouteScenario_0\\u0000");
        assertThat(ResultsJson.read(checkpoint).checkpoint().records()).allSatisfy(record -> {
            assertThat(record.scores().scoreRoute()).isNaN();
            assertThat(record.routeId()).contains("\u001b[2J");
        });
    }

    @Test
    void aLeaderboardOneEvaluatorDrivesTheIdsOfItsSubsetAndNeedsItsScenariosFile() throws Exception {
        startCarla(Optional.empty());
        Path routes = StandInRoutes.write(temp.resolve("routes_testing.xml"), LeaderboardVersion.V1_0,
                StandInRoutes.ids(1, 4));
        Path scenarios = temp.resolve("scenarios.json");
        Path checkpoint = temp.resolve("agent_results.json");
        List<String> args = List.of("--port=" + carla.port(), "--trafficManagerPort=8010", "--agent=/agent.py",
                "--routes=" + routes, "--scenarios=" + scenarios, "--routes-subset=2-4", "--checkpoint=" + checkpoint);

        assertThat(EvaluatorStandIn.of(LeaderboardVersion.V1_0, args, env()).run())
                .as("a scenarios file that is not there fails the route's load").isEqualTo(EvaluatorStandIn.CRASHED_EXIT_CODE);
        assertThat(ResultsJson.read(checkpoint).checkpoint().records()).singleElement()
                .extracting(RouteRecord::status).isEqualTo("Failed - Simulation crashed");

        Files.writeString(scenarios, "{\"available_scenarios\": []}");
        assertThat(EvaluatorStandIn.of(LeaderboardVersion.V1_0, args, env()).run()).isZero();
        assertThat(ResultsJson.read(checkpoint).checkpoint().records()).extracting(RouteRecord::routeId)
                .containsExactly("RouteScenario_2_rep0", "RouteScenario_3_rep0", "RouteScenario_4_rep0");
    }

    @Test
    void theCarlaStandInListensOnlyAfterItsStartUpAndTicks() throws Exception {
        CarlaServerStandIn.Knobs knobs = new CarlaServerStandIn.Knobs(Duration.ofMillis(300), Optional.empty(), false,
                Optional.empty());
        long start = System.nanoTime();
        CompletableFuture<CarlaServerStandIn> starting = CompletableFuture.supplyAsync(() -> {
            try {
                return CarlaServerStandIn.start(0, knobs, () -> { }).inBackground();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        carla = starting.get(10, TimeUnit.SECONDS);
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
        try (var socket = new java.net.Socket("127.0.0.1", carla.port())) {
            socket.setSoTimeout(2000);
            assertThat(socket.getInputStream().read()).isEqualTo('t');
        }
    }

    /**
     * The held route is driven until EvalAI shows the submission's results with a route done, as the EvalAI stand-in's
     * controls answer: the run waits there, however long past the route's time, and goes on once they are shown.
     */
    @Test
    void aHeldRouteIsDrivenUntilEvalAiShowsTheSubmissionsResults() throws Exception {
        startCarla(Optional.empty());
        Path checkpoint = temp.resolve("agent_results.json");
        try (EvalAiStandIn evalAi = EvalAiStandIn.start(EvalAiOptions.builder("token", message -> { }).build())) {
            long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, "registry.local/team-7:1")).pk();
            io.restassured.RestAssured.given().baseUri(evalAi.url()).header("Authorization", "Bearer token")
                    .contentType("application/json").body(Map.of("submission", pk, "submission_status", "running"))
                    .patch("/api/jobs/challenge/1/update_submission/").then().statusCode(200);
            var env = env(HeldRoute.AT_ROUTE, "2", HeldRoute.UNTIL_SHOWN, evalAi.controlUrl() + "/submissions/" + pk,
                    HeldRoute.UNTIL_ROUTES, "1");
            var run = runInBackground(args(checkpoint, "1-2", false), env);

            await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> ResultsJson.read(checkpoint).checkpoint().records().size() == 2);
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !run.isDone());
            assertThat(ResultsJson.read(checkpoint).checkpoint().records()).as("route 2 is still driven").hasSize(2);

            showResults(evalAi, pk, 0);
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !run.isDone());
            showResults(evalAi, pk, 2);
            assertThat(run.get(20, TimeUnit.SECONDS)).isZero();
            assertThat(ResultsJson.read(checkpoint).checkpoint().records()).hasSize(4);
        }
    }

    /** The backend's partial update of the submission, its metadata showing {@code routes} done of 4. */
    private static void showResults(EvalAiStandIn evalAi, long pk, int routes) {
        io.restassured.RestAssured.given().baseUri(evalAi.url()).header("Authorization", "Bearer token")
                .contentType("application/json").body(Map.of("submission", pk, "challenge_phase", 2077,
                        "submission_status", "partially_evaluated", "result", "[{\"split\": \"leaderboard\", "
                                + "\"show_to_participant\": true, \"accuracies\": {\"Driving score\": 1.0}}]",
                        "stdout", "", "stderr", "",
                        "metadata", "{\"_checkpoint\": {\"progress\": [" + routes + ", 4]}}"))
                .put("/api/jobs/challenges/1/update_partially_evaluated_submission/").then().statusCode(200);
    }

    @Test
    void theDieOnceMarkerLetsOnlyTheFirstRunDie() throws Exception {
        Path marker = temp.resolve("died");
        java.util.concurrent.Semaphore deaths = new java.util.concurrent.Semaphore(0);
        CarlaServerStandIn.Knobs knobs = new CarlaServerStandIn.Knobs(Duration.ZERO, Optional.of(Duration.ofMillis(50)),
                false, Optional.of(marker));
        try (CarlaServerStandIn first = CarlaServerStandIn.start(0, knobs, deaths::release)) {
            assertThat(deaths.tryAcquire(5, TimeUnit.SECONDS)).as("the first run dies").isTrue();
        }
        try (CarlaServerStandIn second = CarlaServerStandIn.start(0, knobs, deaths::release)) {
            assertThat(deaths.tryAcquire(500, TimeUnit.MILLISECONDS)).as("the second run lives").isFalse();
        }
        assertThat(marker).exists();
    }
}
