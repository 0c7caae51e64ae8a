package org.carla.leaderboard.podruntime.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The container protocol with real processes and real files: pod-runtime's simulator and agent roles from the packaged
 * jar, supervising the CARLA and evaluator stand-ins, talking through a real status folder.
 */
class PairProtocolIT {

    private static final Duration RUN = Duration.ofSeconds(60);
    /** The bound of a prompt reaction, generous for a loaded machine: well under what the stand-ins would still run. */
    private static final Duration PROMPTLY = Duration.ofSeconds(20);
    private static final List<Integer> DONE = List.of(0, 0);
    private static final List<Integer> CRASHED = List.of(1, 1);

    @TempDir
    Path temp;

    private Pod pod;

    @BeforeEach
    void newPod() throws IOException {
        pod = new Pod(temp);
    }

    @AfterEach
    void stopPod() {
        pod.close();
    }

    /** Both Leaderboards' evaluators, each given its own arguments, drive the pair's routes by id to the end. */
    @ParameterizedTest(name = "Leaderboard {0}")
    @EnumSource(LeaderboardVersion.class)
    void onePairRunsItsRoutesAndBothEndDone(LeaderboardVersion version) throws Exception {
        Pod.Pair pair = pod.startPair(pod.pairEnv(version, 3));

        assertThat(pair.exits(RUN)).as(pod.console(2)).isEqualTo(DONE);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.done", "simulator-1.done");
        CheckpointFile results = ResultsJson.read(pod.checkpoint());
        assertThat(results.hasGlobalRecord()).isTrue();
        assertThat(results.checkpoint().progress()).containsExactly(3, 3);
        assertThat(results.checkpoint().records()).extracting(RouteRecord::routeId)
                .containsExactly("RouteScenario_10_rep0", "RouteScenario_11_rep0", "RouteScenario_12_rep0");
    }

    @Test
    void carlaDyingCrashesBothAndTheRestartedPairRunsOnlyTheRemainingRoutes() throws Exception {
        var env = pod.pairEnv(LeaderboardVersion.V2_0, 6, "EVALUATOR_STANDIN_ROUTE_SECONDS", "1");
        Pod.Pair pair = pod.startPair(env);
        awaitLog("Route RouteScenario_" + Pod.routeId(0) + "_rep0 finished");

        ProcessHandle.of(pod.childPid(1, "CARLA")).ifPresent(ProcessHandle::destroyForcibly); // CARLA dies mid-run
        assertThat(pair.exits(RUN)).isEqualTo(CRASHED);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("simulator-1.crash0", "agent-1.crash0");
        assertThat(pod.console(1)).contains("CARLA exited with code 137");
        // Whether the evaluator writes its own "Crashed" before the agent stops it is a race (the real client waits
        // for its timeout; the simulator's crash file comes first): either way the run is not complete.
        CheckpointFile crashed = ResultsJson.read(pod.checkpoint());
        assertThat(crashed.hasGlobalRecord()).isFalse();
        List<RouteRecord> kept = crashed.checkpoint().records().stream()
                .filter(r -> !r.status().contains("Simulation crashed")).toList();
        assertThat(kept).as("routes finished before CARLA died").isNotEmpty().hasSizeLessThan(6);

        // Kubernetes restarts both containers (restartPolicy OnFailure)
        assertThat(pod.startPair(env).exits(RUN)).isEqualTo(DONE);
        assertThat(pod.statusFiles()).contains("simulator-1.done", "agent-1.done");
        assertThat(pod.console(4)).contains("agent-1 attempt 2").contains("resuming");

        assertOnlyTheRemainingRoutesRanAgain(kept);
    }

    @Test
    void anAgentKilledWithoutACrashFileResumesTheRoutesItFinished() throws Exception {
        var env = pod.pairEnv(LeaderboardVersion.V2_0, 6, "EVALUATOR_STANDIN_ROUTE_SECONDS", "1");
        Pod.Pair pair = pod.startPair(env);
        awaitLog("Route RouteScenario_" + Pod.routeId(1) + "_rep0 finished");

        Pod.kill(pair.agent()); // OOM-killed, evicted: no goodbye, no crash file
        assertThat(pod.statusFiles()).isEmpty();
        List<RouteRecord> kept = ResultsJson.read(pod.checkpoint()).checkpoint().records();
        assertThat(kept).as("routes finished before the kill").isNotEmpty().hasSizeLessThan(6);

        // Kubernetes restarts the agent container; the simulator and its CARLA run on
        Process agent = pod.start("agent", env);
        assertThat(Pod.exit(agent, RUN)).isZero();
        assertThat(Pod.exit(pair.simulator(), RUN)).isZero();
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.done", "simulator-1.done");
        assertThat(pod.console(3)).contains("resuming").contains("the checkpoint holds " + kept.size()
                + " finished routes");
        assertOnlyTheRemainingRoutesRanAgain(kept);
    }

    @Test
    void anEvaluatorCrashCrashesBoth() throws Exception {
        var env = pod.pairEnv("EVALUATOR_STANDIN_CRASH_AT_ROUTE", Pod.routeId(1));

        assertThat(pod.startPair(env).exits(RUN)).isEqualTo(CRASHED);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.crash0", "simulator-1.crash0");
        assertThat(pod.console(2)).contains("the evaluator exited with code 1").contains("has no global record");
        assertThat(pod.console(1)).contains("reason: agent-1 crashed");
    }

    @Test
    void aHungEvaluatorIsStoppedAfterMaxIdle() throws Exception {
        var env = pod.pairEnv("EVALUATOR_STANDIN_HANG_AT_ROUTE", Pod.routeId(1), "MAX_IDLE", "2");

        assertThat(pod.startPair(env).exits(RUN)).isEqualTo(CRASHED);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.crash0", "simulator-1.crash0");
        assertThat(pod.console(2)).contains("the evaluator wrote nothing for").contains("MAX_IDLE PT2S");
        assertThat(ProcessHandle.of(pod.childPid(2, "the evaluator"))).isEmpty();
    }

    @Test
    void cancelStopsBothWithExitZeroPromptly() throws Exception {
        Pod.Pair pair = pod.startPair(pod.pairEnv(LeaderboardVersion.V2_0, 8, "EVALUATOR_STANDIN_ROUTE_SECONDS", "5"));
        awaitLog("> Running the route");

        long cancelled = System.nanoTime();
        Files.createFile(pod.status.resolve("simulation.cancel"));
        int agentExit = Pod.exit(pair.agent(), RUN);
        long agentGone = System.nanoTime();
        int simulatorExit = Pod.exit(pair.simulator(), RUN);
        long simulatorGone = System.nanoTime();

        assertThat(List.of(agentExit, simulatorExit)).isEqualTo(DONE);
        Reactions.record("cancel → agent process exited", agentGone - cancelled);
        Reactions.record("cancel → simulator process exited", simulatorGone - cancelled);
        // Failure detection, not speed (measured above): without the cancel, the evaluator would drive for 35 s more.
        assertThat(Duration.ofNanos(Math.max(agentGone, simulatorGone) - cancelled)).isLessThan(PROMPTLY);
        assertThat(pod.statusFiles()).containsExactly("simulation.cancel");
        assertThat(ProcessHandle.of(pod.childPid(2, "the evaluator"))).isEmpty();
        assertThat(ProcessHandle.of(pod.childPid(1, "CARLA"))).isEmpty();
    }

    @Test
    void anAgentWhosePartnerNeverAnswersGivesUpAfterTheBoundedWait() throws Exception {
        long start = System.nanoTime();
        Process agent = pod.start("agent", pod.pairEnv("PARTNER_WAIT", "1.5")); // no simulator: nothing on CARLA_PORT

        assertThat(Pod.exit(agent, RUN)).isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
        assertThat(pod.statusFiles()).containsExactly("agent-1.crash0");
        assertThat(pod.console(1)).contains("waiting at most PT1.5S for CARLA on port " + pod.carlaPort)
                .contains("CARLA did not accept connections")
                .contains("stopped waiting for simulator-1's status file");
    }

    @Test
    void aSimulatorWhoseAgentNeverAnswersGivesUpAfterTheBoundedWait() throws Exception {
        Process simulator = pod.start("simulator", pod.pairEnv("PARTNER_WAIT", "1.5",
                "CARLA_STANDIN_DIE_AFTER_SECONDS", "0.2")); // no agent

        assertThat(Pod.exit(simulator, RUN)).isEqualTo(1);
        assertThat(pod.statusFiles()).containsExactly("simulator-1.crash0");
        assertThat(pod.console(1)).contains("waiting at most PT1.5S for agent-1's status file")
                .contains("no answer from agent-1");
    }

    @Test
    void sigtermStopsTheChildAndExitsPromptly() throws Exception {
        Pod.Pair pair = pod.startPair(pod.pairEnv(LeaderboardVersion.V2_0, 8, "EVALUATOR_STANDIN_ROUTE_SECONDS", "5"));
        awaitLog("> Running the route");
        long evaluator = pod.childPid(2, "the evaluator");
        long carla = pod.childPid(1, "CARLA");

        long signalled = System.nanoTime();
        pair.agent().destroy(); // SIGTERM, as the kubelet sends it
        assertThat(Pod.exit(pair.agent(), PROMPTLY)).isEqualTo(143);
        Reactions.record("SIGTERM → agent process exited", System.nanoTime() - signalled);
        assertThat(ProcessHandle.of(evaluator)).isEmpty();

        pair.simulator().destroy();
        assertThat(Pod.exit(pair.simulator(), PROMPTLY)).isEqualTo(143);
        assertThat(ProcessHandle.of(carla)).isEmpty();
        assertThat(pod.statusFiles()).as("a stopped pod says nothing about the run").isEmpty();
    }

    @Test
    void theCrashIndexCountsAcrossThreeAttempts() throws Exception {
        var env = pod.pairEnv("EVALUATOR_STANDIN_CRASH_AT_ROUTE", Pod.routeId(0));
        for (int attempt = 1; attempt <= 3; attempt++) {
            assertThat(pod.startPair(env).exits(RUN)).isEqualTo(CRASHED);
            assertThat(pod.console(2 * attempt)).contains("agent-1 attempt " + attempt + ":")
                    .contains("wrote agent-1.crash" + (attempt - 1));
            assertThat(pod.console(2 * attempt - 1)).contains("wrote simulator-1.crash" + (attempt - 1));
        }
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.crash0", "agent-1.crash1", "agent-1.crash2",
                "simulator-1.crash0", "simulator-1.crash1", "simulator-1.crash2");
        assertThat(pod.console(6)).contains("resuming").contains("agent-1.crash1 left by the previous attempt");
    }

    private void awaitLog(String text) {
        Path log = pod.logs.resolve("agent").resolve("agent1").resolve("leaderboard.log");
        await("the evaluator writing '" + text + "'").atMost(RUN).pollInterval(Duration.ofMillis(50))
                .until(() -> Files.exists(log) && pod.leaderboardLog().contains(text));
    }

    /** The last attempt drove only the routes after {@code kept}, and the checkpoint kept those records as they were. */
    private void assertOnlyTheRemainingRoutesRanAgain(List<RouteRecord> kept) throws IOException {
        List<String> remaining = pod.routeIds().subList(kept.size(), pod.routeIds().size()).stream()
                .map(id -> "RouteScenario_" + id).toList();
        assertThat(preparedRoutes(lastRun(pod.leaderboardLog()))).as("the routes the last attempt drove")
                .isEqualTo(remaining);
        CheckpointFile finished = ResultsJson.read(pod.checkpoint());
        assertThat(finished.hasGlobalRecord()).isTrue();
        assertThat(finished.checkpoint().records()).hasSize(pod.routeIds().size())
                .startsWith(kept.toArray(RouteRecord[]::new));
    }

    /** The part of leaderboard.log written by the last attempt (each starts with a "# evaluator started" line). */
    private static String lastRun(String log) {
        return log.substring(log.lastIndexOf("# evaluator started"));
    }

    private static List<String> preparedRoutes(String log) {
        var routes = new java.util.ArrayList<String>();
        Matcher matcher = Pattern.compile("Preparing (RouteScenario_\\d+) \\(repetition").matcher(log);
        while (matcher.find()) {
            routes.add(matcher.group(1));
        }
        return routes;
    }
}
