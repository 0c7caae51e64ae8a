package org.carla.leaderboard.domain.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import org.carla.leaderboard.domain.record.StuckRules.Job;
import org.carla.leaderboard.domain.record.StuckRules.Observed;
import org.carla.leaderboard.domain.record.StuckRules.Rule;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.junit.jupiter.api.Test;

class StuckRulesTests {

    private static final Instant NOW = Instant.parse("2026-11-20T12:00:00Z");
    private static final StuckRules.Bounds BOUNDS = StuckRules.Bounds.defaults();

    private static Instant minutesAgo(long minutes) {
        return NOW.minus(Duration.ofMinutes(minutes));
    }

    private static Observed record(SubmissionStatus status, int launchedRun, Instant since, Instant activity,
            boolean finalSent, Instant end, Job job) {
        return new Observed(status, 2, launchedRun, 1, since, activity, finalSent, end, job);
    }

    private static Rule rule(Observed record) {
        return StuckRules.check(record, NOW, BOUNDS).map(StuckRules.Finding::rule).orElse(null);
    }

    @Test
    void aSubmittedRunWithoutAJobIsStuckOnlyPastItsBound() {
        assertThat(rule(record(SubmissionStatus.SUBMITTED, 1, minutesAgo(11), null, false, null, null)))
                .isEqualTo(Rule.NO_JOB);
        assertThat(rule(record(SubmissionStatus.SUBMITTED, 1, minutesAgo(9), null, false, null, null))).isNull();
        // job-launcher claimed this run: it is making the Job.
        assertThat(rule(record(SubmissionStatus.SUBMITTED, 2, minutesAgo(11), null, false, null, Job.active())))
                .isNull();
    }

    @Test
    void aRunningSubmissionWithoutProgressIsReportedThenFailed() {
        assertThat(rule(record(SubmissionStatus.RUNNING, 2, minutesAgo(200), minutesAgo(10), false, null, null)))
                .isNull();
        assertThat(rule(record(SubmissionStatus.RUNNING, 2, minutesAgo(200), minutesAgo(31), false, null, null)))
                .isEqualTo(Rule.NO_PROGRESS);
        assertThat(rule(record(SubmissionStatus.RUNNING, 2, minutesAgo(200), minutesAgo(121), false, null, null)))
                .isEqualTo(Rule.NO_PROGRESS_TOO_LONG);
        // No progress ever: counted from when it became RUNNING.
        var finding = StuckRules.check(record(SubmissionStatus.RUNNING, 2, minutesAgo(45), null, false, null, null),
                NOW, BOUNDS).orElseThrow();
        assertThat(finding.rule()).isEqualTo(Rule.NO_PROGRESS);
        assertThat(finding.stuckFor()).isEqualTo(Duration.ofMinutes(45));
    }

    @Test
    void waitingForCapacityIsNotStuck() {
        assertThat(rule(record(SubmissionStatus.PENDING, 2, minutesAgo(600), null, false, null, Job.active())))
                .isNull();
    }

    @Test
    void aFinalStatusEvalAiHasNotConfirmedIsStuckPastItsBound() {
        assertThat(rule(record(SubmissionStatus.FINISHED, 2, minutesAgo(6), null, false, minutesAgo(6), null)))
                .isEqualTo(Rule.FINAL_UNCONFIRMED);
        assertThat(rule(record(SubmissionStatus.FAILED, 2, minutesAgo(6), null, true, minutesAgo(6), null))).isNull();
        assertThat(rule(record(SubmissionStatus.CANCELLED, 2, minutesAgo(2), null, false, minutesAgo(2), null)))
                .isNull();
    }

    @Test
    void aJobThatEndedOrVanishedWithoutItsEndRecordedIsStuck() {
        assertThat(rule(record(SubmissionStatus.RUNNING, 2, minutesAgo(20), minutesAgo(6),
                false, null, Job.ended(minutesAgo(6))))).isEqualTo(Rule.JOB_END_UNREPORTED);
        assertThat(rule(record(SubmissionStatus.PENDING, 2, minutesAgo(20), null, false, null, Job.absent())))
                .isEqualTo(Rule.JOB_END_UNREPORTED);
        assertThat(rule(record(SubmissionStatus.RUNNING, 2, minutesAgo(20), minutesAgo(1), false, null,
                Job.ended(minutesAgo(1))))).isNull();
        // The end of this run was recorded: the relay is on it.
        var reported = new Observed(SubmissionStatus.RUNNING, 2, 2, 2, minutesAgo(20), minutesAgo(1), false, null,
                Job.absent());
        assertThat(rule(reported)).isNull();
    }

    @Test
    void aRecordWithoutAKnownStatusIsLeftAlone() {
        assertThat(rule(record(null, 2, minutesAgo(600), null, false, null, null))).isNull();
    }
}
