package org.carla.leaderboard.podruntime.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container protocol with real processes and real files: pod-runtime's simulator and agent roles from the packaged
 * jar, supervising the CARLA and evaluator stand-ins, talking through a real status folder.
 */
class PairProtocolIT {

    private static final Duration RUN = Duration.ofSeconds(60);
    /** The bound of a prompt reaction, generous for a loaded machine: well under what the stand-ins would still run. */
    private static final Duration PROMPTLY = Duration.ofSeconds(20);

    @TempDir
    Path temp;

    @Test
    void onePairRunsItsRoutesAndBothEndDone() throws Exception {
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = pod.pairEnv();
            Process simulator = pod.start("simulator", env);
            Process agent = pod.start("agent", env);

            assertThat(Pod.exit(agent, RUN)).isZero();
            assertThat(Pod.exit(simulator, RUN)).isZero();
            assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.done", "simulator-1.done");
            CheckpointFile results = ResultsJson.read(pod.checkpoint());
            assertThat(results.hasGlobalRecord()).isTrue();
            assertThat(results.checkpoint().progress()).containsExactly(3, 3);
            assertThat(results.checkpoint().records()).extracting(RouteRecord::routeId)
                    .containsExactly("RouteScenario_0_rep0", "RouteScenario_1_rep0", "RouteScenario_2_rep0");
        }
    }

    @Test
    void carlaDyingCrashesBothAndTheRestartedPairRunsOnlyTheRemainingRoutes() throws Exception {
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = pod.pairEnv();
            env.put("ROUTES_SUBSET", "0-5");
            env.put("EVALUATOR_STANDIN_ROUTE_SECONDS", "1");
            env.put("CARLA_STANDIN_DIE_AFTER_SECONDS", "4.5");
            env.put("CARLA_STANDIN_DIE_ONCE_MARKER", temp.resolve("carla-died").toString());

            Process simulator = pod.start("simulator", env);
            Process agent = pod.start("agent", env);
            assertThat(Pod.exit(simulator, RUN)).isEqualTo(1);
            assertThat(Pod.exit(agent, RUN)).isEqualTo(1);
            assertThat(pod.statusFiles()).containsExactlyInAnyOrder("simulator-1.crash0", "agent-1.crash0");
            assertThat(pod.console(1)).contains("CARLA exited with code 139");
            CheckpointFile crashed = ResultsJson.read(pod.checkpoint());
            assertThat(crashed.entryStatus()).isEqualTo("Crashed");
            List<RouteRecord> kept = crashed.checkpoint().records().stream()
                    .filter(r -> !r.status().contains("Simulation crashed")).toList();
            assertThat(kept).as("routes finished before CARLA died").isNotEmpty().hasSizeLessThan(6);

            // Kubernetes restarts both containers (restartPolicy OnFailure)
            Process simulator2 = pod.start("simulator", env);
            Process agent2 = pod.start("agent", env);
            assertThat(Pod.exit(agent2, RUN)).isZero();
            assertThat(Pod.exit(simulator2, RUN)).isZero();
            assertThat(pod.statusFiles()).contains("simulator-1.done", "agent-1.done");
            assertThat(pod.console(4)).contains("agent-1 attempt 2").contains("resuming");

            assertOnlyTheRemainingRoutesRanAgain(pod, kept, 6);
        }
    }

    @Test
    void anAgentKilledWithoutACrashFileResumesTheRoutesItFinished() throws Exception {
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = pod.pairEnv();
            env.put("ROUTES_SUBSET", "0-5");
            env.put("EVALUATOR_STANDIN_ROUTE_SECONDS", "1");
            Process simulator = pod.start("simulator", env);
            Process agent = pod.start("agent", env);
            awaitLog(pod, "Route RouteScenario_1_rep0 finished");

            Pod.kill(agent); // OOM-killed, evicted: no goodbye, no crash file
            assertThat(pod.statusFiles()).isEmpty();
            List<RouteRecord> kept = ResultsJson.read(pod.checkpoint()).checkpoint().records();
            assertThat(kept).as("routes finished before the kill").isNotEmpty().hasSizeLessThan(6);

            // Kubernetes restarts the agent container; the simulator and its CARLA run on
            Process agent2 = pod.start("agent", env);
            assertThat(Pod.exit(agent2, RUN)).isZero();
            assertThat(Pod.exit(simulator, RUN)).isZero();
            assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.done", "simulator-1.done");
            assertThat(pod.console(3)).contains("resuming").contains("the checkpoint holds " + kept.size()
                    + " finished routes");
            assertOnlyTheRemainingRoutesRanAgain(pod, kept, 6);
        }
    }

    @Test
    void anEvaluatorCrashCrashesBoth() throws Exception {
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = pod.pairEnv();
            env.put("EVALUATOR_STANDIN_CRASH_AT_ROUTE", "1");
            Process simulator = pod.start("simulator", env);
            Process agent = pod.start("agent", env);

            assertThat(Pod.exit(agent, RUN)).isEqualTo(1);
            assertThat(Pod.exit(simulator, RUN)).isEqualTo(1);
            assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.crash0", "simulator-1.crash0");
            assertThat(pod.console(2)).contains("the evaluator exited with code 1").contains("has no global record");
            assertThat(pod.console(1)).contains("reason: agent-1 crashed");
        }
    }

    @Test
    void aHungEvaluatorIsStoppedAfterMaxIdle() throws Exception {
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = pod.pairEnv();
            env.put("EVALUATOR_STANDIN_HANG_AT_ROUTE", "1");
            env.put("MAX_IDLE", "2");
            Process simulator = pod.start("simulator", env);
            Process agent = pod.start("agent", env);

            assertThat(Pod.exit(agent, RUN)).isEqualTo(1);
            assertThat(Pod.exit(simulator, RUN)).isEqualTo(1);
            assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.crash0", "simulator-1.crash0");
            assertThat(pod.console(2)).contains("the evaluator wrote nothing for").contains("MAX_IDLE PT2S");
            assertThat(ProcessHandle.of(pod.childPid(2, "the evaluator"))).isEmpty();
        }
    }

    @Test
    void cancelStopsBothWithExitZeroPromptly() throws Exception {
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = pod.pairEnv();
            env.put("ROUTES_SUBSET", "0-7");
            env.put("EVALUATOR_STANDIN_ROUTE_SECONDS", "5");
            Process simulator = pod.start("simulator", env);
            Process agent = pod.start("agent", env);
            awaitLog(pod, "> Running the route");

            long cancelled = System.nanoTime();
            Files.createFile(pod.status.resolve("simulation.cancel"));
            int agentExit = Pod.exit(agent, RUN);
            long agentGone = System.nanoTime();
            int simulatorExit = Pod.exit(simulator, RUN);
            long simulatorGone = System.nanoTime();

            assertThat(agentExit).isZero();
            assertThat(simulatorExit).isZero();
            Reactions.record("cancel → agent process exited", agentGone - cancelled);
            Reactions.record("cancel → simulator process exited", simulatorGone - cancelled);
            // Failure detection, not speed (measured above): without the cancel, the evaluator would drive for 35 s more.
            assertThat(Duration.ofNanos(Math.max(agentGone, simulatorGone) - cancelled)).isLessThan(PROMPTLY);
            assertThat(pod.statusFiles()).containsExactly("simulation.cancel");
            assertThat(ProcessHandle.of(pod.childPid(2, "the evaluator"))).isEmpty();
            assertThat(ProcessHandle.of(pod.childPid(1, "CARLA"))).isEmpty();
        }
    }

    @Test
    void anAgentWhosePartnerNeverAnswersGivesUpAfterTheBoundedWait() throws Exception {
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = pod.pairEnv();
            env.put("PARTNER_WAIT", "1.5");
            long start = System.nanoTime();
            Process agent = pod.start("agent", env); // no simulator: nothing listens on CARLA_PORT

            assertThat(Pod.exit(agent, RUN)).isEqualTo(1);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
            assertThat(pod.statusFiles()).containsExactly("agent-1.crash0");
            assertThat(pod.console(1)).contains("waiting at most PT1.5S for CARLA on port " + pod.carlaPort)
                    .contains("CARLA did not accept connections")
                    .contains("stopped waiting for simulator-1's status file");
        }
    }

    @Test
    void aSimulatorWhoseAgentNeverAnswersGivesUpAfterTheBoundedWait() throws Exception {
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = pod.pairEnv();
            env.put("PARTNER_WAIT", "1.5");
            env.put("CARLA_STANDIN_DIE_AFTER_SECONDS", "0.2");
            Process simulator = pod.start("simulator", env); // no agent

            assertThat(Pod.exit(simulator, RUN)).isEqualTo(1);
            assertThat(pod.statusFiles()).containsExactly("simulator-1.crash0");
            assertThat(pod.console(1)).contains("waiting at most PT1.5S for agent-1's status file")
                    .contains("no answer from agent-1");
        }
    }

    @Test
    void sigtermStopsTheChildAndExitsPromptly() throws Exception {
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = pod.pairEnv();
            env.put("ROUTES_SUBSET", "0-7");
            env.put("EVALUATOR_STANDIN_ROUTE_SECONDS", "5");
            Process simulator = pod.start("simulator", env);
            Process agent = pod.start("agent", env);
            awaitLog(pod, "> Running the route");
            long evaluator = pod.childPid(2, "the evaluator");
            long carla = pod.childPid(1, "CARLA");

            long signalled = System.nanoTime();
            agent.destroy(); // SIGTERM, as the kubelet sends it
            assertThat(Pod.exit(agent, PROMPTLY)).isEqualTo(143);
            Reactions.record("SIGTERM → agent process exited", System.nanoTime() - signalled);
            assertThat(ProcessHandle.of(evaluator)).isEmpty();

            simulator.destroy();
            assertThat(Pod.exit(simulator, PROMPTLY)).isEqualTo(143);
            assertThat(ProcessHandle.of(carla)).isEmpty();
            assertThat(pod.statusFiles()).as("a stopped pod says nothing about the run").isEmpty();
        }
    }

    @Test
    void theCrashIndexCountsAcrossThreeAttempts() throws Exception {
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = pod.pairEnv();
            env.put("EVALUATOR_STANDIN_CRASH_AT_ROUTE", "0");
            for (int attempt = 1; attempt <= 3; attempt++) {
                Process simulator = pod.start("simulator", env);
                Process agent = pod.start("agent", env);
                assertThat(Pod.exit(agent, RUN)).isEqualTo(1);
                assertThat(Pod.exit(simulator, RUN)).isEqualTo(1);
                assertThat(pod.console(2 * attempt)).contains("agent-1 attempt " + attempt + ":")
                        .contains("wrote agent-1.crash" + (attempt - 1));
                assertThat(pod.console(2 * attempt - 1)).contains("wrote simulator-1.crash" + (attempt - 1));
            }
            assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.crash0", "agent-1.crash1", "agent-1.crash2",
                    "simulator-1.crash0", "simulator-1.crash1", "simulator-1.crash2");
            assertThat(pod.console(6)).contains("resuming").contains("agent-1.crash1 left by the previous attempt");
        }
    }

    private static void awaitLog(Pod pod, String text) {
        Path log = pod.logs.resolve("agent").resolve("agent1").resolve("leaderboard.log");
        await("the evaluator writing '" + text + "'").atMost(RUN).pollInterval(Duration.ofMillis(50))
                .until(() -> Files.exists(log) && pod.leaderboardLog().contains(text));
    }

    /** The last attempt drove only the routes after {@code kept}, and the checkpoint kept those records as they were. */
    private static void assertOnlyTheRemainingRoutesRanAgain(Pod pod, List<RouteRecord> kept, int routes)
            throws IOException {
        List<String> remaining = new ArrayList<>();
        for (int route = kept.size(); route < routes; route++) {
            remaining.add("RouteScenario_" + route);
        }
        assertThat(preparedRoutes(lastRun(pod.leaderboardLog()))).as("the routes the last attempt drove")
                .isEqualTo(remaining);
        CheckpointFile finished = ResultsJson.read(pod.checkpoint());
        assertThat(finished.hasGlobalRecord()).isTrue();
        assertThat(finished.checkpoint().records()).hasSize(routes).startsWith(kept.toArray(RouteRecord[]::new));
    }

    /** The part of leaderboard.log written by the last attempt (each starts with a "# evaluator started" line). */
    private static String lastRun(String log) {
        return log.substring(log.lastIndexOf("# evaluator started"));
    }

    private static List<String> preparedRoutes(String log) {
        List<String> routes = new ArrayList<>();
        Matcher matcher = Pattern.compile("Preparing (RouteScenario_\\d+) \\(repetition").matcher(log);
        while (matcher.find()) {
            routes.add(matcher.group(1));
        }
        return routes;
    }

}
