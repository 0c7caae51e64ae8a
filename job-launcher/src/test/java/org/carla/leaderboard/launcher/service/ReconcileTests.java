package org.carla.leaderboard.launcher.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.Outcome;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.carla.leaderboard.launcher.job.SubmissionJob;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The reconcile (every second here) deletes the Job of a run that must not go on and reports its end with the reason,
 * and counts the Jobs whose end was never reported.
 */
@QuarkusTest
@LauncherStack
class ReconcileTests extends LauncherStory {

    @Test
    void aRunCancelledWhileItsPodWaitsForCapacityEndsAtOnce() {
        LaunchRequest request = request("cancelled while pending");
        String name = launched(request);
        jobStartedAt(name, Instant.now());
        podPending(name);

        cancelRequested(request);

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(Outcome.DELETED);
        assertThat(finished.reason()).isEqualTo("Cancelled");
        assertThat(finished.startedAt()).isNull();
        awaitGone(name);
        assertThat(recordOf(request.submission()).get(SubmissionTable.JOB_ENDED_RUN).n()).isEqualTo("1");
        assertStaysCount(request, JobFinished.class, 1);
    }

    @Test
    void aCancelledRunWhosePodKeepsRunningIsDeletedAfterTheGrace() {
        LaunchRequest request = request("cancelled, pod does not stop");
        String name = launched(request);
        podRunning(podPending(name), Instant.now());
        awaitStarted(request);

        cancelRequested(request);

        await().atMost(Duration.ofSeconds(10)).until(() -> JobMetadata.cancelSeen(job(name)).isPresent());
        Instant seen = JobMetadata.cancelSeen(job(name)).orElseThrow();
        assertThat(job(name).getMetadata().getDeletionTimestamp()).as("logcopy may still stop the pod").isNull();
        JobFinished finished = awaitFinished(request);
        assertThat(finished.reason()).isEqualTo("Cancelled");
        assertThat(finished.finishedAt()).isAfterOrEqualTo(seen.plus(config.reconcile().cancelGrace())
                .truncatedTo(ChronoUnit.SECONDS));
        assertThat(finished.startedAt()).isNotNull();
        awaitGone(name);
    }

    @Test
    void aJobOfARunSupersededByALaterRunIsDeleted() {
        LaunchRequest request = request("superseded");
        String name = launched(request);

        record(request.submission(), 2, SubmissionStatus.SUBMITTED, Map.of(SubmissionTable.LAUNCHED_RUN, 1));

        assertThat(awaitFinished(request).reason()).isEqualTo("Superseded");
        awaitGone(name);
    }

    @Test
    void aJobWhoseRecordIsAlreadyFinalIsDeleted() {
        LaunchRequest request = request("final already");
        String name = launched(request);

        setStatus(request.submission(), SubmissionStatus.FAILED);

        assertThat(awaitFinished(request).reason()).isEqualTo("RecordTerminal");
        awaitGone(name);
    }

    @Test
    void aPodWaitingForCapacityLongerThanTheLongestWaitEndsWithThatReason() {
        LaunchRequest request = request("no capacity");
        String name = launched(request);
        podPending(name);

        jobStartedAt(name, Instant.now().minus(config.longestCapacityWait()).minusSeconds(60));

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(Outcome.DELETED);
        assertThat(finished.reason()).isEqualTo("CapacityWaitExceeded");
        awaitGone(name);
    }

    @Test
    void aRunningJobWithARecordOnItsRunIsLeftAlone() {
        LaunchRequest request = request("left alone");
        String name = launched(request);
        jobStartedAt(name, Instant.now().minus(2, ChronoUnit.HOURS));
        podRunning(podPending(name), Instant.now().minus(1, ChronoUnit.HOURS));
        awaitStarted(request);

        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6))
                .until(() -> job(name) != null && job(name).getMetadata().getDeletionTimestamp() == null);
        assertStaysCount(request, JobFinished.class, 0);
    }

    @Test
    void aJobWhoseEndCannotBeReportedIsCountedStuckUntilItIsMended() {
        LaunchRequest request = request("unreportable");
        Job job = new SubmissionJob(config).build(request);
        String identity = job.getMetadata().getAnnotations().get(JobMetadata.SUBMISSION);
        job.getMetadata().getAnnotations().put(JobMetadata.SUBMISSION, "{edited by hand");
        cluster().batch().v1().jobs().inNamespace(config.namespace()).resource(job).create();
        String name = job.getMetadata().getName();

        // It failed longer ago than the rule's bound (StuckRules: 5 minutes) and its end cannot be reported.
        finish(name, "Failed", "BackoffLimitExceeded", Instant.now().minusSeconds(900), null,
                Instant.now().minusSeconds(600));

        await().atMost(Duration.ofSeconds(20)).until(() -> stuckJobs() >= 1);
        assertThat(job(name)).as("left for an operator").isNotNull();
        assertStaysCount(request, JobFinished.class, 0);

        // the operator mends the annotation with a patch: no resourceVersion, so it never conflicts with the launcher
        cluster().batch().v1().jobs().inNamespace(config.namespace()).withName(name).patch(
                PatchContext.of(PatchType.JSON_MERGE), EventCodec.write(Map.of("metadata", Map.of("annotations",
                        Map.of(JobMetadata.SUBMISSION, identity)))));

        assertThat(awaitFinished(request).reason()).isEqualTo("BackoffLimitExceeded");
        awaitGone(name);
        await().atMost(Duration.ofSeconds(10)).until(() -> stuckJobs() == 0);
    }

    private static double stuckJobs() {
        return JobLifecycleTests.metric("leaderboard_stuck_submissions{rule=\"unreported-job\"");
    }
}
