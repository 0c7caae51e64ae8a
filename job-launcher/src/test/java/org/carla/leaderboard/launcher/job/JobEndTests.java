package org.carla.leaderboard.launcher.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.carla.leaderboard.domain.event.JobFinished.Outcome;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;

class JobEndTests {

    @Test
    void aRunningJobHasNoEndEvenWithInterimConditions() {
        Job job = job("SuccessCriteriaMet", "True", "CompletionsReached");
        assertThat(JobEnd.of(job)).isEmpty();
        assertThat(JobEnd.of(job("FailureTarget", "True", "BackoffLimitExceeded"))).isEmpty();
        assertThat(JobEnd.of(job("Failed", "False", "BackoffLimitExceeded"))).isEmpty();
        assertThat(JobEnd.finished(new JobBuilder().withNewMetadata().withName("j").endMetadata().build())).isFalse();
    }

    @Test
    void completeIsSucceededAtItsCompletionTime() {
        Job job = job("Complete", "True", null);
        job.getStatus().setCompletionTime("2026-11-21T12:00:00Z");

        var end = JobEnd.of(job).orElseThrow();

        assertThat(end.outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(end.finishedAt()).isEqualTo(Instant.parse("2026-11-21T12:00:00Z"));
    }

    @Test
    void failedCarriesKubernetesReasonAndTheTransitionTime() {
        var end = JobEnd.of(job("Failed", "True", "DeadlineExceeded")).orElseThrow();

        assertThat(end.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(end.reason()).isEqualTo("DeadlineExceeded");
        assertThat(end.finishedAt()).isEqualTo(Instant.parse("2026-11-21T11:00:00Z"));
    }

    @Test
    void aDeletedJobEndsWhenItsDeletionWasAsked() {
        Job job = job("SuccessCriteriaMet", "False", null);
        job.getMetadata().setDeletionTimestamp("2026-11-21T10:30:00Z");

        var end = JobEnd.deleted(job, Instant.parse("2026-11-21T10:31:00Z"));

        assertThat(end.outcome()).isEqualTo(Outcome.DELETED);
        assertThat(end.reason()).isEqualTo(JobEnd.DELETED_REASON);
        assertThat(end.finishedAt()).isEqualTo(Instant.parse("2026-11-21T10:30:00Z"));
        assertThat(JobEnd.ending(job)).isTrue();
        assertThat(JobEnd.endedAt(job)).contains(Instant.parse("2026-11-21T10:30:00Z"));
    }

    @Test
    void aJobTheLauncherDeletedEndsWithItsReason() {
        Job job = job("SuccessCriteriaMet", "False", null);
        job.getMetadata().setAnnotations(java.util.Map.of(JobMetadata.DELETION_REASON, JobEnd.CANCELLED));

        assertThat(JobEnd.deleted(job, Instant.parse("2026-11-21T10:31:00Z")).reason()).isEqualTo("Cancelled");
        assertThat(JobEnd.ending(job)).isFalse();
    }

    private static Job job(String type, String status, String reason) {
        return new JobBuilder().withNewMetadata().withName("j").endMetadata().withNewStatus()
                .withStartTime("2026-11-21T10:00:00Z")
                .addToConditions(new JobConditionBuilder().withType(type).withStatus(status).withReason(reason)
                        .withLastTransitionTime("2026-11-21T11:00:00Z").build())
                .endStatus().build();
    }
}
