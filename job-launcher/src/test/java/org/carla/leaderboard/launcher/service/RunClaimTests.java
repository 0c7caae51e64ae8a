package org.carla.leaderboard.launcher.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.Outcome;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.launcher.job.JobNames;
import org.carla.leaderboard.localstack.KubernetesComponent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.junit.QuarkusTest;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * No run is ever driven twice: a run is claimed in its record before its Job is made, and a launch request of a run
 * that is not the current one, has ended, or whose record is final is refused, however late it arrives.
 */
@QuarkusTest
@LauncherStack
class RunClaimTests extends LauncherStory {

    @Test
    void theRunIsClaimedInItsRecordBeforeItsJobIsMade() {
        LaunchRequest request = request("claim");
        recorded(request);

        send(request);

        String name = awaitJob(request).getMetadata().getName();
        Map<String, AttributeValue> record = recordOf(request.submission());
        assertThat(record.get(SubmissionTable.LAUNCHED_RUN).n()).isEqualTo("1");
        assertThat(record.get(SubmissionTable.JOB_NAME).s()).isEqualTo(name);
        assertThat(Instant.parse(record.get(SubmissionTable.LAUNCHED_TIME).s())).isBefore(Instant.now());
        assertThat(record.get(SubmissionTable.STATUS).s()).isEqualTo("PENDING");
        assertThat(record.get(SubmissionTable.HISTORY).l()).singleElement().satisfies(entry -> {
            assertThat(entry.m().get(SubmissionTable.HISTORY_STATUS).s()).isEqualTo("PENDING");
            assertThat(entry.m().get(SubmissionTable.HISTORY_RUN).n()).isEqualTo("1");
            assertThat(entry.m().get(SubmissionTable.HISTORY_BY).s()).isEqualTo("job-launcher");
        });
    }

    @Test
    void aRunClaimedByAnAttemptThatDiedBeforeMakingItsJobGetsItsJob() {
        LaunchRequest request = request("claimed then crashed");
        record(request.submission(), 1, SubmissionStatus.PENDING, Map.of(SubmissionTable.LAUNCHED_RUN, 1));

        send(request);

        awaitJob(request);
        assertThat(recordOf(request.submission())).doesNotContainKey(SubmissionTable.HISTORY);
    }

    @ParameterizedTest
    @ValueSource(strings = { "other-run", "run-ended", "terminal", "unknown-submission" })
    void aRequestOfARunThatIsNotToBeDrivenIsRefusedDeletedAndCounted(String reason) {
        LaunchRequest request = request("refused " + reason, 2, 3600);
        switch (reason) {
            case "other-run" -> record(request.submission(), 3, SubmissionStatus.SUBMITTED, Map.of());
            case "run-ended" -> record(request.submission(), 2, SubmissionStatus.RUNNING,
                    Map.of(SubmissionTable.LAUNCHED_RUN, 2, SubmissionTable.JOB_ENDED_RUN, 2));
            case "terminal" -> record(request.submission(), 2, SubmissionStatus.FINISHED,
                    Map.of(SubmissionTable.LAUNCHED_RUN, 2));
            default -> {
                // no record at all
            }
        }
        double refusedBefore = JobLifecycleTests.metric(refusedMetric(reason));

        send(request);

        await().atMost(Duration.ofSeconds(20)).until(() -> JobLifecycleTests.metric(refusedMetric(reason))
                == refusedBefore + 1);
        assertThat(jobsOf(request)).isEmpty();
        assertThat(deadLettered()).doesNotContainKey(EventCodec.write(request));
        assertStaysCount(request, JobFinished.class, 0);
    }

    /** Issue 13, defect 6: the run's request delivered again after its Job ended and was deleted. */
    @Test
    void aLaunchRequestDeliveredAgainAfterItsRunEndedCreatesNoSecondJob() {
        LaunchRequest request = request("late again");
        String name = launched(request);
        finish(name, "Complete", "CompletionsReached", Instant.now().minusSeconds(60), Instant.now());
        awaitFinished(request);
        awaitGone(name);
        assertThat(recordOf(request.submission()).get(SubmissionTable.JOB_ENDED_RUN).n()).isEqualTo("1");
        double refusedBefore = JobLifecycleTests.metric(refusedMetric("run-ended"));

        send(request);

        await().atMost(Duration.ofSeconds(20)).until(() -> JobLifecycleTests.metric(refusedMetric("run-ended"))
                == refusedBefore + 1);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> jobsOf(request).isEmpty());
    }

    @Test
    void anEarlierRunsRequestArrivingDuringTheNextRunIsRefusedAndTheNextRunKeepsItsJob() {
        LaunchRequest first = request("resumed");
        LaunchRequest second = nextRun(first);
        record(second.submission(), 2, SubmissionStatus.SUBMITTED,
                Map.of(SubmissionTable.LAUNCHED_RUN, 1, SubmissionTable.JOB_ENDED_RUN, 1));
        send(second);
        String secondJob = awaitJob(second).getMetadata().getName();

        send(first);

        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> jobsOf(first).isEmpty());
        assertThat(secondJob).isEqualTo(JobNames.forRun(second.submission(), 2)).endsWith("-r2");
        assertThat(job(secondJob)).isNotNull();
    }

    @Test
    void aRunCancelledBeforeItsJobWasMadeEndsWithoutOne() {
        LaunchRequest request = request("cancelled early");
        recorded(request);
        cancelRequested(request);

        send(request);

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(Outcome.DELETED);
        assertThat(finished.reason()).isEqualTo("Cancelled");
        assertThat(finished.run()).isEqualTo(1);
        assertThat(finished.startedAt()).isNull();
        assertThat(finished.jobName()).isEqualTo(JobNames.forRun(request.submission(), 1));
        assertThat(jobsOf(request)).isEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> recordOf(request.submission())
                .containsKey(SubmissionTable.JOB_ENDED_RUN));

        send(request);

        assertStaysCount(request, JobFinished.class, 1);
        assertThat(jobsOf(request)).isEmpty();
    }

    /** Issue 14: an API server that fails is a passing state; the request waits and is launched, never dead-lettered. */
    @Test
    void anApiServerThatFailsDelaysTheLaunchAndLosesNothing() {
        LaunchRequest request = request("api down");
        recorded(request);
        stack.component(KubernetesComponent.NAME, KubernetesComponent.class).api()
                .unavailable("create", "batch", "jobs", 4);

        send(request);

        awaitJob(request);
        assertThat(deadLettered()).doesNotContainKey(EventCodec.write(request));
        assertThat(List.of(recordOf(request.submission()).get(SubmissionTable.LAUNCHED_RUN).n())).containsExactly("1");
    }

    private static String refusedMetric(String reason) {
        return "leaderboard_launcher_requests_refused_total{reason=\"" + reason + "\"";
    }
}
