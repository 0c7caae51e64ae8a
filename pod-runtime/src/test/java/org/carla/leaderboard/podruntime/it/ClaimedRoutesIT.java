package org.carla.leaderboard.podruntime.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.carla.leaderboard.domain.ledger.AttemptOutcome;
import org.carla.leaderboard.domain.ledger.EntryChanges;
import org.carla.leaderboard.domain.ledger.EntryState;
import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.ledger.RetryBudget;
import org.carla.leaderboard.domain.ledger.RouteLedgerTable;
import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.podruntime.ledger.RouteLedger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pod of a run with a route ledger, every container a real process (init, logcopy, two worker pairs over the CARLA
 * and evaluator stand-ins) against DynamoDB Local, S3Proxy and ElasticMQ as the worker role: the pairs drive the routes
 * logcopy claims for them, one at a time, until none is left.
 */
class ClaimedRoutesIT {

    /**
     * The tag of the cases of a pod replaced or one of two, which only the native check runs (pom.xml): in JVM mode
     * e2e's LocalRunIT plays them through the whole system.
     */
    static final String REPLACED_POD = "replaced-pod";

    private static final Duration RUN = Duration.ofSeconds(120);
    private static final String LEADERBOARD = "leaderboard-20";
    private static final AtomicLong SUBMISSIONS = new AtomicLong(System.currentTimeMillis() % 1_000_000 * 100 + 7);

    private static RunningStack stack;

    @TempDir
    Path temp;

    @BeforeAll
    static void startStack() {
        // Kept under target/, like a service's test stack: e2e's PermissionsUsedIT reads the gates' decisions there.
        stack = LocalStack.builder().components("s3", "sqs", "dynamodb")
                .workDir(Path.of("target/local-stack/claimed-routes-it-" + System.nanoTime())).start();
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    /** The environment every container of the pod gets: the pair's, the ledger's, AWS as the worker role. */
    private Map<String, String> podEnv(Pod pod, String submission, int pairs, String... more) throws IOException {
        Map<String, String> env = new HashMap<>(pod.pairEnv(org.carla.leaderboard.domain.track.LeaderboardVersion.V2_0,
                5, more));
        env.putAll(Pod.awsEnvironment(stack));
        env.putAll(Map.of("SUBMISSION_ID", submission, "TEAM_ID", "7", "LEADERBOARD", LEADERBOARD, "RUN", "1",
                "WORKER_PAIRS", Integer.toString(pairs), "LEDGER_TABLE", RouteLedgerTable.DEFAULT_NAME,
                "POD_NAME", "team-7-" + submission + "-r1-0-abcde", "ALLOWED_RESUMES", "1"));
        // An Indexed Job's pod: its host name is the index's, which its replacement has too; its name is its own.
        env.put("HOSTNAME", "team-7-" + submission + "-r1-0");
        env.put("S3_BUCKET", stack.evaluation().leaderboards().get(LEADERBOARD).bucket());
        env.put("PROGRESS_QUEUE_URL", stack.queueUrl("progress-reports"));
        env.put("LOGS_PERIOD", "0.3");
        env.put("RESTART_LIMIT", "10");
        env.put("ROUTE_LEASE", "PT30S");
        env.put("CHALLENGE_TRACK_CODENAME", "SENSORS-" + submission);
        env.put("LEADERBOARD_VOLUME", pod.root.resolve("volumes/leaderboard").toString());
        return env;
    }

    private static RouteLedger ledger(String submission) {
        return new RouteLedger(stack.dynamoDb(), RouteLedgerTable.DEFAULT_NAME, RouteLedgerTable.ledgerPartition(
                LEADERBOARD, submission, 1), new EntryChanges(EntryChanges.DEFAULT_LEASE, RetryBudget.of(1),
                        Clock.systemUTC()), Clock.systemUTC());
    }

    /** Pair i's environment: its own number and CARLA port. */
    private static Map<String, String> pair(Map<String, String> env, int pair, int port) {
        Map<String, String> own = new HashMap<>(env);
        own.put("WORKER_ID", Integer.toString(pair));
        own.put("CARLA_PORT", Integer.toString(port));
        return own;
    }

    @Test
    void twoPairsDriveEveryRouteOnceTheLongestFirstAndTheMergeIsTheLedgers() throws Exception {
        String submission = Long.toString(SUBMISSIONS.incrementAndGet());
        try (Pod pod = new Pod(temp)) {
            // Routes 10..14; 12 and 14 take longest, and the track's record says so.
            Map<String, String> env = podEnv(pod, submission, 2, "EVALUATOR_STANDIN_ROUTE_SECONDS_BY_ID",
                    "10:0.3,11:0.3,12:2.5,13:0.3,14:2");
            var record = ledger(submission);
            String track = RouteLedgerTable.trackPartition(LEADERBOARD, "SENSORS-" + submission);
            record.recordDuration(track, "12", 1_000_000);
            record.recordDuration(track, "14", 900_000);

            assertThat(Pod.exit(pod.start("init", env), RUN)).isZero();
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pod.logs.resolve("claims"))))
                    .as("only init's and logcopy's user writes the claims").isEqualTo("rwxr-xr-x");
            Pod.Ended ended = twoPairs(pod, env).awaitEnd(RUN);

            assertThat(ended.logcopy()).as("logcopy's exit").isZero();
            assertThat(ended.sidecars()).as("the pairs' exits at the pod's end").containsOnly(0);
            assertThat(pod.statusFiles()).contains("agent-1.done", "agent-2.done", "simulator-1.done",
                    "simulator-2.done", "logcopy.done");
            List<LedgerEntry> entries = ledger(submission).read().entries();
            assertThat(entries).hasSize(5).allSatisfy(entry -> {
                assertThat(entry.state()).isEqualTo(EntryState.DONE);
                assertThat(entry.attempts()).singleElement().satisfies(attempt -> {
                    assertThat(attempt.outcome()).isEqualTo(AttemptOutcome.DONE);
                    assertThat(attempt.pod()).isEqualTo("team-7-" + submission + "-r1-0-abcde");
                });
            });
            List<String> claimOrder = entries.stream().sorted(Comparator.comparing(e -> e.attempts().get(0).started()))
                    .map(e -> e.key().routeId()).toList();
            assertThat(claimOrder.subList(0, 2)).as("the two longest routes are claimed first")
                    .containsExactlyInAnyOrder("12", "14");
            assertThat(entries.stream().map(e -> e.attempts().get(0).pair()).distinct()).as("both pairs drove")
                    .containsExactlyInAnyOrder(1, 2);
            CheckpointFile merged = ResultsJson.read(pod.logs.resolve("agent_results.json"));
            assertThat(merged.checkpoint().records()).extracting(r -> r.routeId()).containsExactly(
                    "RouteScenario_10_rep0", "RouteScenario_11_rep0", "RouteScenario_12_rep0",
                    "RouteScenario_13_rep0", "RouteScenario_14_rep0");
            assertThat(merged.hasGlobalRecord()).isTrue();
            assertThat(ledger(submission).durations(track).get("10").n()).as("the track's record grows").isEqualTo(1);
        }
    }

    /**
     * A run of two pods (an Indexed Job's indexes 0 and 1, one pair each): both claim from the run's one ledger, each
     * mirrors its volume under its own folder of the submission's prefix, and the second's init, which starts once the
     * first has uploaded, takes the first's files for nothing of its own.
     */
    @Test
    @Tag(REPLACED_POD)
    void twoPodsClaimFromOneLedgerAndEachMirrorsItsVolumeUnderItsOwnFolder() throws Exception {
        String submission = Long.toString(SUBMISSIONS.incrementAndGet());
        String bucket = stack.evaluation().leaderboards().get(LEADERBOARD).bucket();
        try (Pod first = new Pod(temp.resolve("pod-0")); Pod second = new Pod(temp.resolve("pod-1"))) {
            Map<String, String> env0 = podOfTwo(first, submission, 0);
            Map<String, String> env1 = podOfTwo(second, submission, 1);
            assertThat(Pod.exit(first.start("init", env0), RUN)).isZero();
            Pod.Running firstPod = first.startContainers(env0, List.of(env0));
            long deadline = System.nanoTime() + RUN.toNanos();
            while (keys(bucket, submission + "/pod-0/").isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }

            assertThat(Pod.exit(second.start("init", env1), RUN)).isZero();
            assertThat(second.logs.resolve("logcopy/logcopy.log")).as("the first pod's files are not the second's to"
                    + " resume from").doesNotExist();
            Pod.Running secondPod = second.startContainers(env1, List.of(env1));
            Pod.Ended firstEnded = firstPod.awaitEnd(RUN);
            Pod.Ended secondEnded = secondPod.awaitEnd(RUN);

            assertThat(List.of(firstEnded.logcopy(), secondEnded.logcopy())).as("each pod's logcopy").containsOnly(0);
            assertThat(firstEnded.sidecars()).as("every pair container's exit").containsOnly(0);
            assertThat(secondEnded.sidecars()).as("every pair container's exit").containsOnly(0);
            List<LedgerEntry> entries = ledger(submission).read().entries();
            assertThat(entries).hasSize(5).allSatisfy(entry -> {
                assertThat(entry.state()).isEqualTo(EntryState.DONE);
                assertThat(entry.attempts()).as("driven once, by one pod").hasSize(1);
            });
            assertThat(entries.stream().map(e -> e.attempts().get(0).index()).distinct()).as("both pods drove")
                    .containsExactlyInAnyOrder(0, 1);
            List<String> keys = keys(bucket, submission + "/");
            assertThat(keys).as("nothing of a pod outside its own folder, but init's control object")
                    .allMatch(key -> key.startsWith(submission + "/pod-0/") || key.startsWith(submission + "/pod-1/")
                            || key.startsWith(submission + "/control/"));
            for (String pod : List.of("pod-0", "pod-1")) {
                assertThat(keys).contains(submission + "/" + pod + "/containers-status/logcopy.done",
                        submission + "/" + pod + "/containers-status/agent-1.done",
                        submission + "/" + pod + "/agent/agent1/leaderboard.log");
            }
            assertThat(List.of("pod-0", "pod-1")).as("the pod that ended last merged the whole run's ledger")
                    .anySatisfy(pod -> {
                        CheckpointFile merged = ResultsJson.parse(stack.s3().getObjectAsBytes(r -> r.bucket(bucket)
                                .key(submission + "/" + pod + "/agent_results.json")).asUtf8String());
                        assertThat(merged.checkpoint().records()).hasSize(5);
                        assertThat(merged.hasGlobalRecord()).isTrue();
                    });
        }
    }

    /** Pod {@code index} of a run of two, one pair each: its index, its name, the host name an Indexed Job gives it. */
    private Map<String, String> podOfTwo(Pod pod, String submission, int index) throws IOException {
        // The first pod's routes take 10 s and the second's 2 s: the second starts once the first has uploaded, and
        // however slowly its JVMs start under load, the first cannot drive all five routes before it claims one.
        Map<String, String> env = podEnv(pod, submission, 1, "EVALUATOR_STANDIN_ROUTE_SECONDS",
                index == 0 ? "10" : "2");
        env.put("PODS", "2");
        env.put("JOB_COMPLETION_INDEX", Integer.toString(index));
        env.put("POD_NAME", "team-7-" + submission + "-r1-" + index + "-abcd" + index);
        env.put("HOSTNAME", "team-7-" + submission + "-r1-" + index);
        return env;
    }

    private static List<String> keys(String bucket, String prefix) {
        return stack.s3().listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix)).contents().stream()
                .map(object -> object.key()).toList();
    }

    @Test
    void anEvaluatorCrashReleasesItsRouteWhichTheRestartedPairDrivesAgain() throws Exception {
        String submission = Long.toString(SUBMISSIONS.incrementAndGet());
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = podEnv(pod, submission, 1, "EVALUATOR_STANDIN_CRASH_AT_ROUTE", "12",
                    "EVALUATOR_STANDIN_FAIL_ONCE_MARKER", temp.resolve("crashed-once").toString(),
                    "EVALUATOR_STANDIN_ROUTE_SECONDS", "0.3");

            assertThat(Pod.exit(pod.start("init", env), RUN)).isZero();
            Pod.Ended ended = pod.startContainers(env, List.of(env)).awaitEnd(RUN);

            assertThat(ended.logcopy()).isZero();
            assertThat(ended.sidecars()).containsOnly(0);
            assertThat(pod.statusFiles()).contains("agent-1.crash0", "simulator-1.crash0", "agent-1.done",
                    "agent-1.start1", "simulator-1.start1");
            List<LedgerEntry> entries = ledger(submission).read().entries();
            assertThat(entries).allSatisfy(entry -> assertThat(entry.state()).isEqualTo(EntryState.DONE));
            LedgerEntry crashed = entries.stream().filter(e -> e.key().routeId().equals("12")).findFirst().orElseThrow();
            assertThat(crashed.attempts()).extracting(a -> a.outcome())
                    .containsExactly(AttemptOutcome.AGENT_CRASH, AttemptOutcome.DONE);
            assertThat(crashed.tries()).isEqualTo(1);
            assertThat(entries).filteredOn(e -> !e.key().routeId().equals("12"))
                    .allSatisfy(entry -> assertThat(entry.attempts()).hasSize(1));
        }
    }

    /**
     * A pair whose evaluator crashes at every try of a route spends the pod's crash budget: at the restart that reaches
     * {@code RESTART_LIMIT} (the second crash's first restart, of three), logcopy makes its last upload, gives back
     * what it holds and ends the pod with the code the Job's podFailurePolicy fails the Job on; no {@code logcopy.done}.
     */
    @Test
    void aPairCrashingUntilTheRestartLimitEndsThePodWithItsExitCode() throws Exception {
        String submission = Long.toString(SUBMISSIONS.incrementAndGet());
        try (Pod pod = new Pod(temp)) {
            Map<String, String> env = podEnv(pod, submission, 1, "EVALUATOR_STANDIN_CRASH_AT_ROUTE", "12",
                    "EVALUATOR_STANDIN_ROUTE_SECONDS", "0.3");
            env.put("RESTART_LIMIT", "3");
            assertThat(Pod.exit(pod.start("init", env), RUN)).isZero();

            Pod.Ended ended = pod.startContainers(env, List.of(env)).awaitEnd(RUN);

            assertThat(ended.logcopy()).as("logcopy's exit").isEqualTo(PodEnvironment.RESTART_LIMIT_EXIT_CODE);
            // (The restarted pair may still have been told that no route is left, route 12's budget spent, and have
            // written its done files during logcopy's last upload: the limit was reached first, the run fails.)
            assertThat(pod.statusFiles()).contains("agent-1.crash1", "simulator-1.crash1").doesNotContain("logcopy.done");
            assertThat(StatusFiles.restarts(pod.statusFiles(), 1)).isGreaterThanOrEqualTo(3);
            assertThat(ledger(submission).read().entries()).as("nothing stays claimed by the pod that ended")
                    .noneSatisfy(entry -> assertThat(entry.state()).isEqualTo(EntryState.CLAIMED));
            String bucket = stack.evaluation().leaderboards().get(LEADERBOARD).bucket();
            assertThat(keys(bucket, submission + "/")).doesNotContain(submission + "/containers-status/logcopy.done");
            assertThat(stack.s3().getObjectAsBytes(r -> r.bucket(bucket).key(submission + "/logcopy/logcopy.log"))
                    .asUtf8String()).contains("RESTART_LIMIT is 3: this is the last upload");
        }
    }

    @Test
    @Tag(REPLACED_POD)
    void aPodStoppedMidRunGivesItsRoutesBackAndItsReplacementDrivesOnlyThoseNotFinished() throws Exception {
        String submission = Long.toString(SUBMISSIONS.incrementAndGet());
        Map<String, String> first;
        List<String> finishedBefore;
        try (Pod pod = new Pod(temp.resolve("pod-a"))) {
            first = podEnv(pod, submission, 2, "EVALUATOR_STANDIN_ROUTE_SECONDS", "1.5");
            var containers = startTwoPairs(pod, first);
            long deadline = System.nanoTime() + RUN.toNanos();
            while (done(submission).size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            // The kubelet stops the pod: SIGTERM to logcopy, then to the sidecars, last first.
            Pod.Ended ended = containers.stop(Duration.ofSeconds(30));

            assertThat(ended.logcopy()).as("logcopy stops within the grace").isEqualTo(143);
            assertThat(ended.sidecars()).as("each pair container stops within the grace").containsOnly(143);
            finishedBefore = done(submission);
            assertThat(finishedBefore).hasSizeBetween(2, 4);
            assertThat(ledger(submission).read().entries()).as("no route stays claimed by the stopped pod")
                    .noneSatisfy(entry -> assertThat(entry.state()).isEqualTo(EntryState.CLAIMED));
        }
        replacementDrivesOnlyWhatWasNotFinished(submission, finishedBefore);
        assertThat(ledger(submission).read().entries()).as("the routes in flight at the stop were released, not left to "
                + "their lease").anySatisfy(entry -> assertThat(entry.attempts()).anySatisfy(a -> assertThat(a.reason())
                        .contains("SIGTERM")));
    }

    /**
     * A node lost mid-run: every process of the pod dies at once (SIGKILL), so nothing is released; the routes its
     * pairs held come back to the ledger when their leases lapse, and the replacement takes them over.
     */
    @Test
    @Tag(REPLACED_POD)
    void aPodLostWithItsNodeCostsOnlyTheRoutesInFlight() throws Exception {
        String submission = Long.toString(SUBMISSIONS.incrementAndGet());
        List<String> finishedBefore;
        List<String> inFlight;
        try (Pod pod = new Pod(temp.resolve("pod-a"))) {
            Map<String, String> first = podEnv(pod, submission, 2, "EVALUATOR_STANDIN_ROUTE_SECONDS", "1.5");
            first.put("ROUTE_LEASE", "PT5S");
            var containers = startTwoPairs(pod, first);
            long deadline = System.nanoTime() + RUN.toNanos();
            while ((done(submission).size() < 2 || inFlight(submission).isEmpty()) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            containers.lose(); // the node is gone: every process at once, no grace, nothing started again
            finishedBefore = done(submission);
            inFlight = inFlight(submission);
            assertThat(finishedBefore).hasSizeBetween(2, 4);
            assertThat(inFlight).as("routes were in flight when the node was lost").isNotEmpty();
        }
        replacementDrivesOnlyWhatWasNotFinished(submission, finishedBefore);
        // Under load the first pod's own 5 s leases may have lapsed once before (taken over by its other pair).
        assertThat(ledger(submission).read().entries()).filteredOn(e -> inFlight.contains(e.key().routeId()))
                .as("each route in flight was taken over once its lease lapsed, and driven to its end")
                .allSatisfy(entry -> assertThat(entry.attempts()).last().extracting(a -> a.outcome())
                        .isEqualTo(AttemptOutcome.DONE))
                .allSatisfy(entry -> assertThat(entry.attempts().subList(0, entry.attempts().size() - 1)).isNotEmpty()
                        .allSatisfy(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.INFRASTRUCTURE))
                        .allSatisfy(a -> assertThat(a.reason()).startsWith("lease lapsed at")));
    }

    /** init to its end, then two pairs and logcopy, each container a process of its own. */
    private static Pod.Running startTwoPairs(Pod pod, Map<String, String> env) throws Exception {
        assertThat(Pod.exit(pod.start("init", env), RUN)).isZero();
        return twoPairs(pod, env);
    }

    /** Two pairs (their sidecars) and logcopy, once init is done. */
    private static Pod.Running twoPairs(Pod pod, Map<String, String> env) throws IOException {
        int port2 = org.carla.leaderboard.localstack.process.FreePort.forALaterBind();
        return pod.startContainers(env, List.of(pair(env, 1, pod.carlaPort), pair(env, 2, port2)));
    }

    private static List<String> inFlight(String submission) {
        return ledger(submission).read().entries().stream().filter(e -> e.state() == EntryState.CLAIMED)
                .map(e -> e.key().routeId()).toList();
    }

    /**
     * A replacement pod of the run (another name) drives every route the first did not finish, and nothing else. Its own
     * claims' lease is the production-like 30 s: the lapses under test are the first pod's, written with the first
     * pod's lease; a 5 s lease here lapsed again when a loaded machine delayed one of its renewals. For the same reason a
     * route the first pod finished may show an earlier attempt of that pod too, taken over by its other pair.
     */
    private void replacementDrivesOnlyWhatWasNotFinished(String submission, List<String> finishedBefore)
            throws Exception {
        try (Pod replacement = new Pod(temp.resolve("pod-b"))) {
            Map<String, String> env = podEnv(replacement, submission, 2, "EVALUATOR_STANDIN_ROUTE_SECONDS", "0.3");
            env.put("POD_NAME", "team-7-" + submission + "-r1-0-fghij");
            env.put("ROUTE_LEASE", "PT30S");
            int port2 = org.carla.leaderboard.localstack.process.FreePort.forALaterBind();
            assertThat(Pod.exit(replacement.start("init", env), RUN)).isZero();
            Pod.Ended ended = replacement.startContainers(env, List.of(pair(env, 1, replacement.carlaPort),
                    pair(env, 2, port2))).awaitEnd(RUN);

            assertThat(ended.logcopy()).isZero();
            List<LedgerEntry> entries = ledger(submission).read().entries();
            assertThat(entries).allSatisfy(entry -> assertThat(entry.state()).isEqualTo(EntryState.DONE));
            assertThat(entries).filteredOn(e -> finishedBefore.contains(e.key().routeId()))
                    .as("a route finished before the first pod ended is never driven again")
                    .allSatisfy(entry -> assertThat(entry.attempts()).allSatisfy(a -> assertThat(a.pod())
                            .endsWith("abcde")).last().extracting(a -> a.outcome()).isEqualTo(AttemptOutcome.DONE));
            assertThat(entries).filteredOn(e -> !finishedBefore.contains(e.key().routeId()))
                    .allSatisfy(entry -> {
                        assertThat(entry.attempts()).last().satisfies(a -> {
                            assertThat(a.outcome()).isEqualTo(AttemptOutcome.DONE);
                            assertThat(a.pod()).endsWith("fghij");
                        });
                        assertThat(entry.attempts()).filteredOn(a -> a.outcome() != AttemptOutcome.DONE)
                                .allSatisfy(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.INFRASTRUCTURE));
                        assertThat(entry.tries()).as("losing the pod is not the route's fault").isZero();
                    });
            CheckpointFile merged = ResultsJson.read(replacement.logs.resolve("agent_results.json"));
            assertThat(merged.checkpoint().records()).hasSize(5);
        }
    }

    private static List<String> done(String submission) {
        return ledger(submission).read().entries().stream().filter(e -> e.state() == EntryState.DONE)
                .map(e -> e.key().routeId()).toList();
    }
}
