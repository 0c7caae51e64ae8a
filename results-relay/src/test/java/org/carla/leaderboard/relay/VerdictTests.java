package org.carla.leaderboard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.RESULTS;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;
import static org.carla.leaderboard.relay.ResultsRelayTests.MAP_QUALIFIER;
import static org.carla.leaderboard.relay.ResultsRelayTests.isTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.ledger.ClaimAssignment;
import org.carla.leaderboard.domain.ledger.ClaimAssignment.Crashes;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.junit.QuarkusTest;

/**
 * A verdict a participant's code cannot forge, and a failure a participant can read: the agent container can write
 * every status file and every file of the logs volume, so FINISHED needs the relay's own check of the results against
 * the run's expected routes, CANCELLED needs the relay's own record of the cancel, and numbers no score can be end the
 * run FAILED with the reason instead of an update EvalAI refuses forever. A run whose routes were claimed (phase 2076's
 * {@code schedule}) and one of them gave up says which, and how each attempt ended.
 */
@QuarkusTest
@RelayStack
class VerdictTests {

    @InjectLocalStack
    RunningStack stack;

    @Inject
    TestClock clock;

    @Test
    void doneFilesWithoutEveryExpectedRouteAreAFailureThatNamesWhatIsMissing() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of()).allDone();

        given.send(given.succeeded());

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("failed");
        assertThat(onEvalAi.stderr()).startsWith("The submission failed: every container reported done, but the"
                + " results hold 1 finished routes of the 2 expected");
        assertThat(given.recordStatus()).isEqualTo("FAILED");
        assertThat(given.record().get(SubmissionTable.FAILURE_REASON).s())
                .startsWith("The submission failed: every container reported done");
    }

    @Test
    void aClaimedRunMissingARouteThatGaveUpNamesTheRouteAndHowEachAttemptEnded() {
        var given = GivenSubmission.submitted(stack, MAP_QUALIFIER).results(Map.of()).allDone();
        String gaveUp = "route 1 repetition 0 gave up after 2 attempts: AGENT_CRASH (the evaluator exited with 1);"
                + " SIMULATOR_CRASH (CARLA exited with 139)";
        given.put(LogsLayout.claimFile(1), ClaimAssignment.none(3, new Crashes(0, 0), "").json());
        given.put(LogsLayout.claimFile(2), ClaimAssignment.none(4, new Crashes(2, 1), gaveUp).json());

        given.send(given.succeeded());

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("failed");
        assertThat(onEvalAi.stderr()).startsWith("The submission failed: every container reported done, but the"
                + " results hold 1 finished routes of the 2 expected").contains("A route could not be driven: " + gaveUp);
    }

    @Test
    void aRunOfTwoPodsFinishesOnEveryPodsDoneFilesAndTheMostCompleteOfTheirMerges() {
        // Pod 0 ended first, when one route was left; pod 1 merged the whole ledger at its end.
        var given = GivenSubmission.submitted(stack, MAP_QUALIFIER).inPod(0, 2).results(Map.of()).allDone()
                .inPod(1, 2).results(RESULTS).allDone();

        given.send(given.succeeded());

        assertThat(finalReport(given).status()).isEqualTo("finished");
        assertThat(given.recordStatus()).isEqualTo("FINISHED");
    }

    @Test
    void aRunOfTwoPodsWhoseSecondPodLeftNoLogcopyDoneFileFails() {
        var given = GivenSubmission.submitted(stack, MAP_QUALIFIER).inPod(0, 2).results(RESULTS).allDone()
                .inPod(1, 2).statusFiles("agent-1.done", "simulator-1.done", "agent-2.done", "simulator-2.done");

        given.send(given.succeeded());

        assertThat(finalReport(given).status()).isEqualTo("failed");
        assertThat(given.recordStatus()).isEqualTo("FAILED");
    }

    @Test
    void aRunOfTwoPodsFinishesWithoutThePodThatNeverRanWhenTheOtherDroveEveryRoute() {
        // Index 1 never got a node; index 0 claimed and drove every route; job-launcher ended the Job.
        var given = GivenSubmission.submitted(stack, MAP_QUALIFIER).inPod(0, 2).results(RESULTS).allDone();
        Instant start = TestClock.now().minusSeconds(660);
        var neverRan = List.of(new JobFinished.PodSpan(0, "r1-0-abcde", start, start.plusSeconds(500)),
                new JobFinished.PodSpan(1, "r1-1-fghij", null, null));

        given.send(given.jobFinished(JobFinished.Outcome.DELETED, JobFinished.ROUTES_DONE_BEFORE_PODS_RAN, List.of(),
                neverRan));

        assertThat(finalReport(given).status()).isEqualTo("finished");
        assertThat(given.recordStatus()).isEqualTo("FINISHED");

        // The same files, but index 1 ran: its done files are missing, and the run failed.
        var ran = GivenSubmission.submitted(stack, MAP_QUALIFIER).inPod(0, 2).results(RESULTS).allDone();
        ran.send(ran.jobFinished(JobFinished.Outcome.FAILED, "DeadlineExceeded", List.of(),
                List.of(neverRan.get(0), new JobFinished.PodSpan(1, "r1-1-fghij", start, null))));

        assertThat(finalReport(ran).status()).isEqualTo("failed");
    }

    @Test
    void aClaimFileCannotFailARunWhoseResultsAreComplete() {
        var given = GivenSubmission.submitted(stack, MAP_QUALIFIER).results(RESULTS).allDone();
        given.put(LogsLayout.claimFile(1), ClaimAssignment.none(3, new Crashes(0, 0),
                "route 0 repetition 0 gave up after 1 attempts: AGENT_CRASH").json());

        given.send(given.succeeded());

        assertThat(finalReport(given).status()).isEqualTo("finished");
    }

    @Test
    void aGapInTheRoutesIsNamed() {
        var given = GivenSubmission.submitted(stack, SENSORS)
                .results(GivenSubmission.route(0, 40, 80, "{}"), GivenSubmission.route(2, 40, 80, "{}")).allDone();

        given.send(given.succeeded());

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("failed");
        assertThat(onEvalAi.stderr()).contains("routes missing from the sequence").contains("RouteScenario_1_rep0");
    }

    @Test
    void evalAiFilesWrittenByTheAgentAreNotRelayed() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        given.put("evalai/results.json", """
                [{"split": "leaderboard", "show_to_participant": true, "accuracies": {"Driving score": 100.0}}]""");
        given.put("evalai/stdout.txt", "forged\n");

        given.send(given.succeeded());

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("finished");
        assertThat(onEvalAi.result()).contains("\"Driving score\": 41.25").doesNotContain("100.0");
        assertThat(onEvalAi.stdout()).doesNotContain("forged").contains("All 2 route have been completed");
    }

    @Test
    void aCancelFileTheRelayDidNotAskForIsAFailureThatSaysSo() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone()
                .statusFiles(StatusFiles.SIMULATION_CANCEL);

        given.send(given.succeeded());

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("failed");
        assertThat(onEvalAi.stderr()).contains("cancel signal (simulation.cancel) that was not requested");
        assertThat(given.recordStatus()).isEqualTo("FAILED");
    }

    /**
     * As a forged cancel really reaches the relay: logcopy uploads the pairs' forged done files, never a file the agent
     * wrote at one of logcopy's own names ({@code simulation.cancel}, {@code logcopy.done}); it ends on the cancel it
     * did not write and says so in its last report. The Job completes, every container having exited 0.
     */
    @Test
    void aCancelLogcopyEndedOnButDidNotWriteIsAFailureThatSaysSo() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS);
        for (int pair = 1; pair <= given.workerPairs; pair++) {
            given.statusFiles(StatusFiles.done(StatusFiles.Role.AGENT, pair),
                    StatusFiles.done(StatusFiles.Role.SIMULATOR, pair));
        }
        given.send(given.jobStarted());
        await().atMost(PATIENCE).until(() -> "RUNNING".equals(given.recordStatus()));
        given.report(given.lastReport(Progress.Ending.UNREQUESTED_CANCEL, List.of()));
        await().atMost(PATIENCE).until(() -> given.record().containsKey(SubmissionTable.LAST_ENDING));

        given.send(given.jobFinished(JobFinished.Outcome.SUCCEEDED, "CompletionsReached", List.of()));

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("failed");
        assertThat(onEvalAi.stderr()).startsWith("The submission failed: it was stopped by a cancel signal"
                + " (simulation.cancel) that was not requested").doesNotContain("CompletionsReached");
        assertThat(given.recordStatus()).isEqualTo("FAILED");
        assertThat(given.record().get(SubmissionTable.FAILURE_REASON).s()).contains("simulation.cancel");
    }

    @ParameterizedTest
    @ValueSource(strings = { "NaN", "Infinity", "1e308", "-5.0" })
    void numbersNoScoreCanBeEndTheRunFailedWithTheReason(String score) {
        var given = GivenSubmission.submitted(stack, SENSORS).allDone();
        // The participant's code writes the merged checkpoint itself, unmerged records and all: the relay's own
        // merge must refuse them.
        given.mergedResults(GivenSubmission.checkpoint(GivenSubmission.route(0, 40, 80, "{}").replace(
                "\"score_composed\": 40.0", "\"score_composed\": " + score), GivenSubmission.route(1, 40, 80, "{}")
                        .replace("\"score_composed\": 40.0", "\"score_composed\": " + score)));

        given.send(given.succeeded());

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("failed");
        assertThat(onEvalAi.stderr()).contains("route records refused, not counted: RouteScenario_0_rep0: score_composed");
        assertThat(String.valueOf(onEvalAi.result())).doesNotContain("NaN").doesNotContain("Infinity");
        assertThat(given.recordStatus()).isEqualTo("FAILED");
        assertThat(given.record().get("driving_score").n()).isEqualTo("0.0");
    }

    @Test
    void routesLogcopysMergeRefusedAreNamedFromTheAgentsOwnCheckpoint() {
        String nan = GivenSubmission.route(0, 40, 80, "{}").replace("\"score_composed\": 40.0", "\"score_composed\": NaN");
        var given = GivenSubmission.submitted(stack, SENSORS).allDone().results(nan, GivenSubmission.route(1, 40, 80, "{}"));
        given.put(LogsLayout.agentCheckpoint(1), GivenSubmission.checkpoint(nan, GivenSubmission.route(1, 40, 80, "{}")));

        given.send(given.succeeded());

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("failed");
        assertThat(onEvalAi.stderr()).contains("1 finished routes of the 2 expected")
                .contains("agent 1's route records refused, not counted: RouteScenario_0_rep0: score_composed is nan");
    }

    @Test
    void resultsLargerThanTheRelayReadsAreAFailure() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        given.put("agent_results.json", "{\"padding\": \"" + "x".repeat(1_200_000) + "\"}");

        given.send(given.succeeded());

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("failed");
        assertThat(onEvalAi.stderr()).contains("the merged results are 1200015 bytes, more than the 1048576");
    }

    @Test
    void theParticipantSeesItsOwnContainersLogsOnlyNeverLogcopys() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of())
                .log("logcopy/logcopy.log", "uploading to s3://carla-leaderboard-20/ via https://sqs.us-east-1"
                        + ".amazonaws.com/123456789012/progress-reports", 5)
                .log("simulator/agent-wrote-2.log", "forged", 5)
                .log("simulator/simulator2.log", "carla2", 5);

        given.send(given.jobFinished(JobFinished.Outcome.FAILED, "BackoffLimitExceeded", List.of(
                new ContainerOutcome("simulator-2", 3, 1, "Error", null),
                new ContainerOutcome("logcopy", 1, 1, "Error", null))));

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.stderr()).contains("carla2 line 5").contains("=== logcopy")
                .contains("its log is kept for the leaderboard's operators")
                .doesNotContain("forged").doesNotContain("s3://").doesNotContain("123456789012");
    }

    @Test
    void whatLogcopyCouldNotUploadIsToldEvenWhenItsLastReportComesAfterTheJobsEnd() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        given.send(given.jobStarted());
        await().atMost(PATIENCE).until(() -> "RUNNING".equals(given.recordStatus()));

        given.send(given.jobFinished(JobFinished.Outcome.SUCCEEDED, null, List.of(), TestClock.now()));
        given.report(given.lastReport(Progress.Ending.FINISHED, List.of("agent/agent1/camera.log",
                "simulator/odd\u0007name.log")));

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("finished");
        assertThat(onEvalAi.stderr()).contains("could not be uploaded").contains("- agent/agent1/camera.log\n")
                .contains("- simulator/odd\\u0007name.log\n");
        assertThat(given.record().get(SubmissionTable.LAST_ENDING).s()).isEqualTo("FINISHED");
    }

    @Test
    void aCancelTheRelayRecordedEndsTheRunCancelledAndIsWithdrawnAfterwards() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of());
        stack.evalAi().cancel(given.pk());
        given.send(given.jobStarted());
        String control = given.id() + "/control/cancel";
        // Noticed at the run's first list, a minute after its submission.
        clock.minutesUntil(() -> stack.s3().listObjectsV2(r -> r.bucket(given.bucket).prefix(control))
                .keyCount() == 1);

        given.statusFiles(StatusFiles.SIMULATION_CANCEL);
        given.send(given.succeeded());

        var onEvalAi = finalReport(given);
        assertThat(onEvalAi.status()).isEqualTo("cancelled");
        assertThat(given.recordStatus()).isEqualTo("CANCELLED");
        assertThat(stack.s3().listObjectsV2(r -> r.bucket(given.bucket).prefix(control)).keyCount()).isZero();
    }

    /** The final report as EvalAI shows it once confirmed (the update goes at once, its confirmation a minute later). */
    private org.carla.leaderboard.localstack.evalai.SubmissionView finalReport(GivenSubmission given) {
        await().atMost(PATIENCE).until(() -> !EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk()).isEmpty());
        clock.minutesUntil(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));
        return given.onEvalAi();
    }
}
