package org.carla.leaderboard.domain.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

import org.carla.leaderboard.domain.record.StuckRules.Job;
import org.carla.leaderboard.domain.record.StuckRules.Observed;
import org.carla.leaderboard.domain.record.StuckRules.Rule;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

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
    void theRulesAreNamedAsTheMetricAndTheAlarmsName() {
        assertThat(Arrays.stream(Rule.values()).map(Rule::label))
                .containsExactly("unlaunched", "no-progress", "unconfirmed-final", "unreported-job");
        assertThat(Arrays.stream(Rule.values()).map(Rule::mender))
                .containsExactly("ingest-service", "results-relay", "results-relay", "job-launcher");
    }

    @Test
    void theDefaultBoundsAreTheDocumentedOnes() {
        assertThat(BOUNDS).isEqualTo(new StuckRules.Bounds(Duration.ofMinutes(10), Duration.ofMinutes(15),
                Duration.ofHours(2), Duration.ofMinutes(5), Duration.ofMinutes(5)));
        assertThatThrownBy(() -> new StuckRules.Bounds(Duration.ofMinutes(10), Duration.ofMinutes(15),
                Duration.ofMinutes(15), Duration.ofMinutes(5), Duration.ofMinutes(5)))
                .hasMessageContaining("must be longer");
    }

    @Test
    void aSubmittedRunWithoutAJobIsStuckOnlyPastItsBound() {
        assertThat(rule(record(SubmissionStatus.SUBMITTED, 1, minutesAgo(11), null, false, null, null)))
                .isEqualTo(Rule.UNLAUNCHED);
        assertThat(rule(record(SubmissionStatus.SUBMITTED, 1, minutesAgo(9), null, false, null, null))).isNull();
        // job-launcher claimed this run: it is making the Job.
        assertThat(rule(record(SubmissionStatus.SUBMITTED, 2, minutesAgo(11), null, false, null, Job.active())))
                .isNull();
    }

    @Test
    void aLaunchRequestPublishedAgainStartsTheBoundAgain() {
        var republished = new Observed(SubmissionStatus.SUBMITTED, 2, 1, 1, minutesAgo(30), null, false, null, null,
                minutesAgo(4));
        assertThat(rule(republished)).isNull();
        var longAgo = new Observed(SubmissionStatus.SUBMITTED, 2, 1, 1, minutesAgo(30), null, false, null, null,
                minutesAgo(12));
        var finding = StuckRules.check(longAgo, NOW, BOUNDS).orElseThrow();
        assertThat(finding.rule()).isEqualTo(Rule.UNLAUNCHED);
        assertThat(finding.stuckFor()).isEqualTo(Duration.ofMinutes(12));
        assertThat(finding.mend()).isEqualTo("publish the run's launch request again");
    }

    @Test
    void aRunningSubmissionWithoutProgressIsReportedThenFailed() {
        assertThat(rule(record(SubmissionStatus.RUNNING, 2, minutesAgo(200), minutesAgo(10), false, null, null)))
                .isNull();
        var reported = StuckRules.check(record(SubmissionStatus.RUNNING, 2, minutesAgo(200), minutesAgo(16), false,
                null, null), NOW, BOUNDS).orElseThrow();
        assertThat(reported.rule()).isEqualTo(Rule.NO_PROGRESS);
        assertThat(reported.fail()).isFalse();
        assertThat(reported.mend()).isEqualTo("report it");
        var failed = StuckRules.check(record(SubmissionStatus.RUNNING, 2, minutesAgo(200), minutesAgo(121), false,
                null, null), NOW, BOUNDS).orElseThrow();
        assertThat(failed.rule()).isEqualTo(Rule.NO_PROGRESS);
        assertThat(failed.fail()).isTrue();
        assertThat(failed.mend()).contains("fail it");
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
                .isEqualTo(Rule.UNCONFIRMED_FINAL);
        assertThat(rule(record(SubmissionStatus.FAILED, 2, minutesAgo(6), null, true, minutesAgo(6), null))).isNull();
        assertThat(rule(record(SubmissionStatus.CANCELLED, 2, minutesAgo(2), null, false, minutesAgo(2), null)))
                .isNull();
        // Counted from when the final status was recorded, not from the Job's end long before (a relay backlog).
        assertThat(rule(record(SubmissionStatus.FINISHED, 2, minutesAgo(1), null, false, minutesAgo(90), null)))
                .isNull();
    }

    @Test
    void aJobThatEndedOrVanishedWithoutItsEndRecordedIsStuck() {
        assertThat(rule(record(SubmissionStatus.RUNNING, 2, minutesAgo(20), minutesAgo(6),
                false, null, Job.ended(minutesAgo(6))))).isEqualTo(Rule.UNREPORTED_JOB);
        assertThat(rule(record(SubmissionStatus.PENDING, 2, minutesAgo(20), null, false, null, Job.absent())))
                .isEqualTo(Rule.UNREPORTED_JOB);
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

    @Test
    void theMetricsAreOneGaugePerRuleAndACounterOfMends() {
        var registry = new SimpleMeterRegistry();
        var metrics = new StuckMetrics(registry, Rule.NO_PROGRESS, Rule.UNCONFIRMED_FINAL);
        metrics.found(Rule.NO_PROGRESS, 3);
        metrics.mended(Rule.NO_PROGRESS, "reported");
        metrics.mended(Rule.NO_PROGRESS, "reported");
        assertThat(registry.get(StuckRules.GAUGE).tag(StuckRules.RULE_TAG, "no-progress").gauge().value())
                .isEqualTo(3);
        assertThat(registry.get(StuckRules.GAUGE).tag(StuckRules.RULE_TAG, "unconfirmed-final").gauge().value())
                .isZero();
        assertThat(registry.get(StuckRules.MENDS).tags(StuckRules.RULE_TAG, "no-progress", StuckRules.MEND_TAG,
                "reported").counter().count()).isEqualTo(2);
        assertThatThrownBy(() -> metrics.found(Rule.UNLAUNCHED, 1)).hasMessageContaining("unlaunched");
    }
}
