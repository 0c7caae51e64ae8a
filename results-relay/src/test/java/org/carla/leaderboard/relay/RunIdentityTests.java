package org.carla.leaderboard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.RESULTS;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;
import static org.carla.leaderboard.relay.ResultsRelayTests.isTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The relay acts only on the record's current run, and believes a progress report only when the record says so: an
 * earlier run's events, a report of a submission it does not know, of another run, of a run not running or already
 * over change nothing, in DynamoDB or on EvalAI.
 */
@QuarkusTest
@RelayStack
class RunIdentityTests {

    @InjectLocalStack
    RunningStack stack;

    @Inject
    TestClock clock;

    @Inject
    MeterRegistry registry;

    /** Issue 13's failing e2e: run 1's final report delivered again during run 2 made run 2 FAILED. */
    @Test
    void anEarlierRunsFinalReportDeliveredAgainDuringTheResumedRunChangesNothing() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of());
        var run1Failed = given.jobFinished(JobFinished.Outcome.FAILED, "BackoffLimitExceeded",
                List.of(new ContainerOutcome("agent-1", 4, 1, "Error", TestClock.now())));
        given.send(run1Failed);
        clock.minutesUntil(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));
        stack.evalAi().resume(given.pk());
        given.resumed();
        double otherRunBefore = dropped("job-finished", "other-run");

        given.send(run1Failed);

        await().atMost(PATIENCE).until(() -> dropped("job-finished", "other-run") > otherRunBefore);
        assertThat(given.recordStatus()).isEqualTo("SUBMITTED");
        assertThat(given.onEvalAi().status()).isEqualTo("resuming");
        assertThat(EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk())).hasSize(1);

        // Run 2 drives to its end, undisturbed.
        given.results(RESULTS).allDone();
        given.send(given.jobStarted());
        await().atMost(PATIENCE).until(() -> "RUNNING".equals(given.recordStatus()));
        given.report(given.progress(2, 2));
        clock.minutesUntil(() -> "partially_evaluated".equals(given.onEvalAi().status()));
        given.send(given.succeeded());
        clock.minutesUntil(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));
        assertThat(given.recordStatus()).isEqualTo("FINISHED");
        assertThat(given.onEvalAi().status()).isEqualTo("finished");
        assertThat(given.record().get(SubmissionTable.RUN).n()).isEqualTo("2");
    }

    @Test
    void theRunsPodRunningMakesItRunningFromThePodsStartWithItsHistory() {
        var given = GivenSubmission.submitted(stack, SENSORS);
        var started = given.jobStarted();

        given.send(started);

        clock.minutesUntil(() -> "running".equals(given.onEvalAi().status()));
        var record = given.record();
        assertThat(record.get(SubmissionTable.STATUS).s()).isEqualTo("RUNNING");
        assertThat(record.get(SubmissionTable.START_TIME).s()).isEqualTo(started.podStartedAt().toString());
        assertThat(record.get(SubmissionTable.JOB_NAME).s()).isEqualTo(given.jobName());
        assertThat(given.onEvalAi().jobNames()).containsExactly(given.jobName());
        var entry = record.get(SubmissionTable.HISTORY).l().get(0).m();
        assertThat(entry.get(SubmissionTable.HISTORY_STATUS).s()).isEqualTo("RUNNING");
        assertThat(entry.get(SubmissionTable.HISTORY_RUN).n()).isEqualTo("1");
        assertThat(entry.get(SubmissionTable.HISTORY_BY).s()).isEqualTo("results-relay");
    }

    @Test
    void aJobStartedOfAnEarlierRunIsDropped() {
        var given = GivenSubmission.submitted(stack, SENSORS).resumed();
        given.run = 1;
        double before = dropped("job-started", "other-run");

        given.send(given.jobStarted());

        await().atMost(PATIENCE).until(() -> dropped("job-started", "other-run") > before);
        assertThat(given.recordStatus()).isEqualTo("SUBMITTED");
        assertThat(EvalAiCalls.runningUpdates(stack.evalAi().calls(), given.pk())).isEmpty();
    }

    /**
     * A pod's first reports can overtake job-launcher's {@code job-started} (a loaded launcher announces the start late):
     * they wait on the queue, unbelieved, and count once the start is recorded. Dropped, they were lost until the next
     * report with news, and EvalAI showed nothing of the routes already done.
     */
    @Test
    void aReportThatOvertookItsRunsStartWaitsOnTheQueueAndCountsOnceTheStartIsRecorded() {
        var given = GivenSubmission.submitted(stack, SENSORS).pending().results(RESULTS);
        double before = early();

        given.report(given.progress(2, 2));

        await().atMost(PATIENCE).until(() -> early() > before);
        assertThat(given.record()).doesNotContainKey(SubmissionTable.ROUTES_DONE);
        assertThat(EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk())).isEmpty();

        given.send(given.jobStarted());

        clock.minutesUntil(() -> given.record().containsKey(SubmissionTable.ROUTES_DONE));
        assertThat(given.record().get(SubmissionTable.ROUTES_DONE).n()).isEqualTo("2");
        assertThat(given.recordStatus()).isEqualTo("RUNNING");
    }

    /**
     * Each pod of a run of several pods reports the whole route ledger as of its own last merge: a pod that merged
     * earlier may report after one that merged later, and the run's routes done must not go back.
     */
    @Test
    void aRunOfTwoPodsNeverShowsFewerRoutesDoneWhenAPodThatMergedEarlierReportsLate() {
        var given = running(GivenSubmission.submitted(stack, SENSORS).inPod(1, 2).results(RESULTS));
        given.report(given.progress(3, 4));
        clock.minutesUntil(() -> given.record().containsKey(SubmissionTable.ROUTES_DONE));
        assertThat(given.record().get(SubmissionTable.ROUTES_DONE).n()).isEqualTo("3");
        String reported = given.record().get(SubmissionTable.LAST_PROGRESS_TIME).s();

        clock.advance(java.time.Duration.ofSeconds(30));
        given.report(given.progress(1, 4));

        await().atMost(PATIENCE)
                .until(() -> !reported.equals(given.record().get(SubmissionTable.LAST_PROGRESS_TIME).s()));
        assertThat(given.record().get(SubmissionTable.ROUTES_DONE).n()).isEqualTo("3");
        given.report(given.progress(4, 4));
        await().atMost(PATIENCE).until(() -> "4".equals(given.record().get(SubmissionTable.ROUTES_DONE).n()));
    }

    @Test
    void aReportOfAnotherRunOrOfNoSuchSubmissionIsNotBelieved() {
        var given = running(GivenSubmission.submitted(stack, SENSORS).results(RESULTS));
        double otherRun = dropped("progress", "other-run");
        double unknown = dropped("progress", "unknown-submission");
        var report = given.progress(2, 2);
        var ref = report.submission();

        // The run after this one, the same submission under another team, a leaderboard that does not exist.
        given.report(withRef(report, ref, report.run() + 1),
                withRef(report, new SubmissionRef(ref.submissionPk(), ref.teamId() + 1, ref.leaderboard()), 1),
                withRef(report, new SubmissionRef(ref.submissionPk(), ref.teamId(), "leaderboard-99"), 1));

        await().atMost(PATIENCE).until(() -> dropped("progress", "other-run") > otherRun
                && dropped("progress", "unknown-submission") >= unknown + 2);
        assertThat(given.record()).doesNotContainKey(SubmissionTable.ROUTES_DONE);
        assertThat(EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk())).isEmpty();
    }

    /**
     * The record's last progress is when the relay believed a report, never the time the report claims (a pod writes
     * it: one dated 2099 would keep the stuck rule no-progress from ever seeing the run silent); a heartbeat tells
     * EvalAI nothing.
     */
    @Test
    void aHeartbeatMovesTheRecordsProgressToTheRelaysTimeNotTheReportsAndTellsEvalAiNothing() {
        var given = running(GivenSubmission.submitted(stack, SENSORS).results(Map.of()));
        given.report(given.progress(1, 2));
        clock.minutesUntil(() -> given.record().containsKey(SubmissionTable.LAST_RESULTS_DIGEST));
        String firstProgress = given.record().get(SubmissionTable.LAST_PROGRESS_TIME).s();
        int callsBefore = EvalAiCalls.about(stack.evalAi().calls(), given.pk()).size();
        var first = given.progress(1, 2);
        var heartbeat = Progress.of(first.submission(), first.run(), 1, 2, false, first.resultsDigest(), true, null,
                List.of(), Instant.parse("2099-01-01T00:00:00Z"));

        given.report(heartbeat);

        await().atMost(PATIENCE).until(() -> !firstProgress.equals(
                given.record().get(SubmissionTable.LAST_PROGRESS_TIME).s()));
        assertThat(Instant.parse(given.record().get(SubmissionTable.LAST_PROGRESS_TIME).s()))
                .isAfter(Instant.parse(firstProgress)).isBeforeOrEqualTo(clock.instant());
        assertThat(EvalAiCalls.about(stack.evalAi().calls(), given.pk())).hasSize(callsBefore);
    }

    @Test
    void aReportAfterTheRunEndedIsNotBelieved() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        given.send(given.succeeded());
        clock.minutesUntil(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));
        double before = dropped("progress", "final");

        given.report(given.progress(1, 2));

        await().atMost(PATIENCE).until(() -> dropped("progress", "final") > before);
        assertThat(given.onEvalAi().status()).isEqualTo("finished");
        assertThat(given.record().get(SubmissionTable.STATUS).s()).isEqualTo("FINISHED");
    }

    private GivenSubmission running(GivenSubmission given) {
        given.send(given.jobStarted());
        await().atMost(PATIENCE).until(() -> "RUNNING".equals(given.recordStatus()));
        return given;
    }

    private static Progress withRef(Progress report, SubmissionRef ref, int run) {
        return Progress.of(ref, run, report.routesDone(), report.routesTotal(), report.globalResults(),
                report.resultsDigest(), report.heartbeat(), report.ending(), report.notUploaded(), report.at());
    }

    /** How often a progress report was put back on its queue because it came before its run's start. */
    private double early() {
        return registry.find("leaderboard.queue.handling").tag("queue", "progress-reports").tag("outcome", "early")
                .timers().stream().mapToDouble(timer -> timer.count()).sum();
    }

    private double dropped(String type, String reason) {
        return registry.find("relay.events.dropped").tag("type", type).tag("reason", reason).counters().stream()
                .mapToDouble(Counter::count).sum();
    }
}
