package org.carla.leaderboard.podruntime.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * jar, supervising the CARLA and evaluator stand-ins, talking through a real status folder, run as the kubelet runs
 * the pod's sidecars ({@link Pod.Sidecar}: started again after any exit, SIGTERM when the pod ends).
 */
class PairProtocolIT {

    private static final Duration RUN = Duration.ofSeconds(60);
    /** The bound of a prompt reaction, generous for a loaded machine: well under what the stand-ins would still run. */
    private static final Duration PROMPTLY = Duration.ofSeconds(20);
    /** How long a container that holds is watched: it would have exited, and been started again, well within. */
    private static final Duration HOLD = Duration.ofSeconds(1);
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

    /**
     * Both Leaderboards' evaluators, each given its own arguments, drive the pair's routes by id to the end; then both
     * containers hold (a sidecar that exits is started again) until the pod ends, and exit 0 on its SIGTERM.
     */
    @ParameterizedTest(name = "Leaderboard {0}")
    @EnumSource(LeaderboardVersion.class)
    void onePairRunsItsRoutesAndBothEndDone(LeaderboardVersion version) throws Exception {
        Pod.Pair pair = pod.startPair(pod.pairEnv(version, 3));

        pair.awaitHolding(0, RUN);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.start0", "simulator-1.start0",
                "agent-1.done", "simulator-1.done");
        assertHolds(pair);
        assertThat(pair.end(PROMPTLY)).isEqualTo(DONE);
        CheckpointFile results = ResultsJson.read(pod.checkpoint());
        assertThat(results.hasGlobalRecord()).isTrue();
        assertThat(results.checkpoint().progress()).containsExactly(3, 3);
        assertThat(results.checkpoint().records()).extracting(RouteRecord::routeId)
                .containsExactly("RouteScenario_10_rep0", "RouteScenario_11_rep0", "RouteScenario_12_rep0");
    }

    @Test
    void carlaDyingCrashesBothAndTheRestartedPairRunsOnlyTheRemainingRoutes() throws Exception {
        var env = pod.pairEnv(LeaderboardVersion.V2_0, 6, "EVALUATOR_STANDIN_ROUTE_SECONDS", "1");
        pod.holdRestarts(); // to look at what the crashed attempt left before the kubelet starts both again
        Pod.Pair pair = pod.startPair(env);
        awaitLog("Route RouteScenario_" + Pod.routeId(0) + "_rep0 finished");

        ProcessHandle.of(pair.simulator().childPid(0, "CARLA")).ifPresent(ProcessHandle::destroyForcibly);
        assertThat(pair.exits(0, RUN)).isEqualTo(CRASHED);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("simulator-1.start0", "agent-1.start0",
                "simulator-1.crash0", "agent-1.crash0");
        assertThat(pair.simulator().console(0)).contains("CARLA exited with code 137");
        // Whether the evaluator writes its own "Crashed" before the agent stops it is a race (the real client waits
        // for its timeout; the simulator's crash file comes first): either way the run is not complete.
        CheckpointFile crashed = ResultsJson.read(pod.checkpoint());
        assertThat(crashed.hasGlobalRecord()).isFalse();
        List<RouteRecord> kept = crashed.checkpoint().records().stream()
                .filter(r -> !r.status().contains("Simulation crashed")).toList();
        assertThat(kept).as("routes finished before CARLA died").isNotEmpty().hasSizeLessThan(6);

        pod.allowRestarts(2); // the kubelet starts both containers again
        pair.awaitHolding(1, RUN);
        assertThat(pair.end(PROMPTLY)).isEqualTo(DONE);
        assertThat(pod.statusFiles()).as("each container's two starts").containsExactlyInAnyOrder(
                "simulator-1.start0", "simulator-1.start1", "agent-1.start0", "agent-1.start1",
                "simulator-1.crash0", "agent-1.crash0", "simulator-1.done", "agent-1.done");
        assertThat(pair.agent().console(1)).contains("agent-1 attempt 2").contains("resuming");

        assertOnlyTheRemainingRoutesRanAgain(kept);
    }

    @Test
    void anAgentKilledWithoutACrashFileResumesTheRoutesItFinished() throws Exception {
        var env = pod.pairEnv(LeaderboardVersion.V2_0, 6, "EVALUATOR_STANDIN_ROUTE_SECONDS", "1");
        Pod.Pair pair = pod.startPair(env);
        awaitLog("Route RouteScenario_" + Pod.routeId(1) + "_rep0 finished");

        pod.holdRestarts();
        Pod.kill(pair.agent().current()); // OOM-killed, evicted: no goodbye, no crash file
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("simulator-1.start0", "agent-1.start0");
        List<RouteRecord> kept = ResultsJson.read(pod.checkpoint()).checkpoint().records();
        assertThat(kept).as("routes finished before the kill").isNotEmpty().hasSizeLessThan(6);

        pod.allowRestarts(1); // the kubelet starts the agent container again; the simulator and its CARLA run on
        pair.agent().awaitHolding(1, RUN);
        pair.simulator().awaitHolding(0, RUN);
        assertThat(pair.end(PROMPTLY)).isEqualTo(DONE);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("simulator-1.start0", "agent-1.start0",
                "agent-1.start1", "agent-1.done", "simulator-1.done");
        assertThat(pair.agent().console(1)).contains("resuming").contains("the checkpoint holds " + kept.size()
                + " finished routes");
        assertOnlyTheRemainingRoutesRanAgain(kept);
    }

    /**
     * A container that holds after its done file can still die (OOM, a kill): the kubelet starts it again, and it ends
     * its attempt as the first did, without driving anything again: the simulator sees the agent done and starts no
     * CARLA; the agent, finding no CARLA, judges its complete checkpoint done again. Both hold again.
     */
    @Test
    void aDoneContainerStartedAgainFindsItsWorkDoneAndHoldsAgain() throws Exception {
        Pod.Pair pair = pod.startPair(pod.pairEnv("PARTNER_WAIT", "8"));
        pair.awaitHolding(0, RUN);
        String checkpoint = Files.readString(pod.checkpoint());

        Pod.kill(pair.simulator().current());
        Pod.kill(pair.agent().current());
        pair.awaitHolding(1, RUN);

        assertThat(pair.end(PROMPTLY)).isEqualTo(DONE);
        assertThat(pair.simulator().console(1)).doesNotContain("started CARLA").contains("agent-1 is done");
        assertThat(pair.agent().console(1)).doesNotContain("started the evaluator").contains("wrote agent-1.done");
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("simulator-1.start0", "simulator-1.start1",
                "agent-1.start0", "agent-1.start1", "agent-1.done", "simulator-1.done");
        assertThat(Files.readString(pod.checkpoint())).isEqualTo(checkpoint);
    }

    @Test
    void anEvaluatorCrashCrashesBoth() throws Exception {
        var env = pod.pairEnv("EVALUATOR_STANDIN_CRASH_AT_ROUTE", Pod.routeId(1));
        pod.holdRestarts();
        Pod.Pair pair = pod.startPair(env);

        assertThat(pair.exits(0, RUN)).isEqualTo(CRASHED);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.start0", "simulator-1.start0",
                "agent-1.crash0", "simulator-1.crash0");
        assertThat(pair.agent().console(0)).contains("the evaluator exited with code 1").contains("has no global record");
        assertThat(pair.simulator().console(0)).contains("reason: agent-1 crashed");
    }

    @Test
    void aHungEvaluatorIsStoppedAfterMaxIdle() throws Exception {
        var env = pod.pairEnv("EVALUATOR_STANDIN_HANG_AT_ROUTE", Pod.routeId(1), "MAX_IDLE", "2");
        pod.holdRestarts();
        Pod.Pair pair = pod.startPair(env);

        assertThat(pair.exits(0, RUN)).isEqualTo(CRASHED);
        assertThat(pod.statusFiles()).contains("agent-1.crash0", "simulator-1.crash0");
        assertThat(pair.agent().console(0)).contains("the evaluator wrote nothing for").contains("MAX_IDLE PT2S");
        assertThat(ProcessHandle.of(pair.agent().childPid(0, "the evaluator"))).isEmpty();
    }

    /** Cancel stops both children promptly; the containers hold until the pod ends, then exit 0. */
    @Test
    void cancelStopsBothChildrenPromptlyAndBothExitZeroWhenThePodEnds() throws Exception {
        Pod.Pair pair = pod.startPair(pod.pairEnv(LeaderboardVersion.V2_0, 8, "EVALUATOR_STANDIN_ROUTE_SECONDS", "5"));
        awaitLog("> Running the route");
        ProcessHandle evaluator = running(pair.agent(), "the evaluator");
        ProcessHandle carla = running(pair.simulator(), "CARLA");

        long cancelled = System.nanoTime();
        Files.createFile(pod.status.resolve("simulation.cancel"));
        evaluator.onExit().get(RUN.toMillis(), TimeUnit.MILLISECONDS);
        long evaluatorGone = System.nanoTime();
        carla.onExit().get(RUN.toMillis(), TimeUnit.MILLISECONDS);
        long carlaGone = System.nanoTime();

        Reactions.record("cancel → evaluator stopped (agent holds)", evaluatorGone - cancelled);
        Reactions.record("cancel → CARLA stopped (simulator holds)", carlaGone - cancelled);
        // Failure detection, not speed (measured above): without the cancel, the evaluator would drive for 35 s more.
        assertThat(Duration.ofNanos(Math.max(evaluatorGone, carlaGone) - cancelled)).isLessThan(PROMPTLY);
        pair.awaitHolding(0, PROMPTLY);
        assertHolds(pair);
        assertThat(pair.end(PROMPTLY)).isEqualTo(DONE);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("simulation.cancel", "agent-1.start0",
                "simulator-1.start0");
    }

    @Test
    void anAgentWhosePartnerNeverAnswersGivesUpAfterTheBoundedWait() throws Exception {
        long start = System.nanoTime();
        Process agent = pod.start("agent", pod.pairEnv("PARTNER_WAIT", "1.5")); // no simulator: nothing on CARLA_PORT

        assertThat(Pod.exit(agent, RUN)).isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.start0", "agent-1.crash0");
        assertThat(pod.console(1)).contains("waiting at most PT1.5S for CARLA on port " + pod.carlaPort)
                .contains("CARLA did not accept connections")
                .contains("stopped waiting for simulator-1's status file");
    }

    @Test
    void aSimulatorWhoseAgentNeverAnswersGivesUpAfterTheBoundedWait() throws Exception {
        Process simulator = pod.start("simulator", pod.pairEnv("PARTNER_WAIT", "1.5",
                "CARLA_STANDIN_DIE_AFTER_SECONDS", "0.2")); // no agent

        assertThat(Pod.exit(simulator, RUN)).isEqualTo(1);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("simulator-1.start0", "simulator-1.crash0");
        assertThat(pod.console(1)).contains("waiting at most PT1.5S for agent-1's status file")
                .contains("no answer from agent-1");
    }

    /**
     * A start that fails on its configuration (exit 2) counts as a start: each one the kubelet makes leaves its start
     * file, so logcopy's restart limit ends a pod whose Job is wrong. Without its pair, a container cannot name one.
     */
    @Test
    void aStartThatFailsOnItsConfigurationLeavesItsStartFile() throws Exception {
        var env = pod.pairEnv();
        env.remove("ROUTES");

        assertThat(Pod.exit(pod.start("agent", env), RUN)).isEqualTo(2);
        assertThat(Pod.exit(pod.start("agent", env), RUN)).isEqualTo(2);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.start0", "agent-1.start1");
        assertThat(pod.console(2)).contains("wrote agent-1.start1").contains("bad configuration, exit 2")
                .contains("ROUTES");

        env.put("WORKER_ID", "none");
        assertThat(Pod.exit(pod.start("simulator", env), RUN)).isEqualTo(2);
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.start0", "agent-1.start1");
    }

    /** The kubelet stopping the pod: SIGTERM to each container, last first; each stops its child's group promptly. */
    @Test
    void sigtermStopsTheChildAndExitsPromptly() throws Exception {
        Pod.Pair pair = pod.startPair(pod.pairEnv(LeaderboardVersion.V2_0, 8, "EVALUATOR_STANDIN_ROUTE_SECONDS", "5"));
        awaitLog("> Running the route");
        long evaluator = pair.agent().childPid(0, "the evaluator");
        long carla = pair.simulator().childPid(0, "CARLA");

        long signalled = System.nanoTime();
        assertThat(pair.agent().end(PROMPTLY)).isEqualTo(143);
        Reactions.record("SIGTERM → agent process exited", System.nanoTime() - signalled);
        assertThat(ProcessHandle.of(evaluator)).isEmpty();

        assertThat(pair.simulator().end(PROMPTLY)).isEqualTo(143);
        assertThat(ProcessHandle.of(carla)).isEmpty();
        assertThat(pod.statusFiles()).as("a stopped pod says nothing about the run")
                .containsExactlyInAnyOrder("agent-1.start0", "simulator-1.start0");
    }

    @Test
    void theCrashIndexCountsAcrossThreeAttempts() throws Exception {
        var env = pod.pairEnv("EVALUATOR_STANDIN_CRASH_AT_ROUTE", Pod.routeId(0));
        pod.holdRestarts();
        Pod.Pair pair = pod.startPair(env);
        for (int attempt = 1; attempt <= 3; attempt++) {
            int k = attempt - 1;
            assertThat(pair.exits(k, RUN)).isEqualTo(CRASHED);
            assertThat(pair.agent().console(k)).contains("agent-1 attempt " + attempt + ":")
                    .contains("wrote agent-1.crash" + k);
            assertThat(pair.simulator().console(k)).contains("wrote simulator-1.crash" + k);
            if (attempt < 3) {
                pod.allowRestarts(2);
            }
        }
        assertThat(pod.statusFiles()).containsExactlyInAnyOrder("agent-1.crash0", "agent-1.crash1", "agent-1.crash2",
                "simulator-1.crash0", "simulator-1.crash1", "simulator-1.crash2", "agent-1.start0", "agent-1.start1",
                "agent-1.start2", "simulator-1.start0", "simulator-1.start1", "simulator-1.start2");
        assertThat(pair.agent().console(2)).contains("resuming").contains("agent-1.crash1 left by the previous attempt");
    }

    /** Both containers are still there, and were started once, {@link #HOLD} after they said they hold. */
    private static void assertHolds(Pod.Pair pair) {
        await("both containers holding").during(HOLD).atMost(HOLD.plus(PROMPTLY)).until(() -> pair.agent().current()
                .isAlive() && pair.simulator().current().isAlive() && pair.agent().starts() == 1
                && pair.simulator().starts() == 1);
    }

    /** The child the first start of {@code sidecar} logged, running; or what that start and the evaluator printed. */
    private ProcessHandle running(Pod.Sidecar sidecar, String child) throws IOException {
        long pid = sidecar.childPid(0, child);
        var handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (handle.isEmpty()) {
            throw new AssertionError(child + " (pid " + pid + ") is not running; " + sidecar.starts()
                    + " start(s); the first one's console:\n" + sidecar.console(0) + "\nthe evaluator's log:\n"
                    + pod.leaderboardLog());
        }
        return handle.get();
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
