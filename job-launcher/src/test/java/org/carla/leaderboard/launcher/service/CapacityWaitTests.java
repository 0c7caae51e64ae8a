package org.carla.leaderboard.launcher.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.Outcome;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.carla.leaderboard.launcher.job.RunDeadline;
import org.carla.leaderboard.localstack.testing.LocalStackResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Pod;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Waiting for capacity does not spend the run's deadline, on the local stack's API server and Job runner, which plays
 * the scheduler (GPU pods beyond its capacity wait Pending, Unschedulable), the kubelet (the containers run as local
 * processes, here shell stand-ins of every role: {@link ShellRoles}) and the Job controller (its clock counts the deadline from the Job's
 * start, Pending time included, and follows a patched deadline).
 */
@QuarkusTest
@WithTestResource(value = LocalStackResource.class, initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,kubernetes"),
        // a GPU node group scaled to zero: no pod is placed until the test adds capacity
        @ResourceArg(name = "local-stack.kubernetes.gpu-capacity", value = "0"),
        @ResourceArg(name = "local-stack.images.every-image.image", value = ".*"),
        @ResourceArg(name = "local-stack.images.every-image.command./usr/local/bin/pod-runtime", value = "/bin/true"),
        @ResourceArg(name = "local-stack.images.every-image.command./opt/pod-runtime/pod-runtime",
                value = ShellRoles.PAIR + "sleep 2; " + ShellRoles.DONE_AND_HOLD + ShellRoles.END),
        @ResourceArg(name = "local-stack.images.pod-runtime.image", value = "carla-leaderboard/pod-runtime:.*"),
        @ResourceArg(name = "local-stack.images.pod-runtime.order", value = "10"),
        @ResourceArg(name = "local-stack.images.pod-runtime.command./usr/local/bin/pod-runtime", value = "/bin/true"),
        @ResourceArg(name = "local-stack.images.pod-runtime.command./opt/pod-runtime/pod-runtime",
                value = ShellRoles.LOGCOPY),
        // a participant's agent that drives for a minute
        @ResourceArg(name = "local-stack.images.slow-agent.image", value = "registry\\.example\\.org/team/slow:.*"),
        @ResourceArg(name = "local-stack.images.slow-agent.order", value = "10"),
        @ResourceArg(name = "local-stack.images.slow-agent.command./opt/pod-runtime/pod-runtime",
                value = ShellRoles.PAIR + "sleep 60; " + ShellRoles.DONE_AND_HOLD + ShellRoles.END) })
class CapacityWaitTests extends LauncherStory {

    private static final long DEADLINE_SECONDS = 15;

    @AfterEach
    void noCapacityLeft() {
        stack.jobRunner().gpuCapacity(0);
    }

    @Test
    void aRunThatWaitsForAGpuLongerThanItsDeadlineStillFinishes() {
        LaunchRequest request = request("waits longer than its deadline", 1, DEADLINE_SECONDS);
        String name = launched(request);

        // Pending, Unschedulable, for longer than the run's whole deadline: no start, no end.
        await().during(Duration.ofSeconds(DEADLINE_SECONDS + 5)).atMost(Duration.ofSeconds(DEADLINE_SECONDS + 20))
                .until(() -> !JobEnd.ending(job(name)) && podsOf(name).stream().allMatch(CapacityWaitTests::pending));
        assertThat(events().eventsNow(pk(request))).isEmpty();
        Instant jobStart = RunDeadline.countedFrom(job(name));

        stack.jobRunner().gpuCapacity(1); // the autoscaler brought a node

        JobStarted started = awaitStarted(request);
        assertThat(started.podStartedAt()).isAfter(jobStart.plusSeconds(DEADLINE_SECONDS));
        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).as("reason %s", finished.reason()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(finished.startedAt()).isEqualTo(started.podStartedAt());
        awaitGone(name);
    }

    @Test
    void theDeadlineStillEndsARunThatDrivesLongerThanItFromItsPodsStart() {
        LaunchRequest fast = request("drives too long", 1, 3);
        LaunchRequest request = LaunchRequest.of(fast.submission(), 1, "registry.example.org/team/slow:v1", false,
                fast.trackSpec(), fast.requestedAt());
        String name = launched(request);
        await().atMost(Duration.ofSeconds(10)).until(() -> RunDeadline.countedFrom(job(name)) != null);

        stack.jobRunner().gpuCapacity(1);

        // Without the deadline moved to the pod's start, the Job would have its 3 s plus the longest wait, and succeed.
        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(finished.reason()).isEqualTo("DeadlineExceeded");
    }

    private java.util.List<Pod> podsOf(String jobName) {
        return cluster().pods().inNamespace(config.namespace()).withLabel(JobMetadata.POD_JOB_NAME, jobName).list()
                .getItems();
    }

    private static boolean pending(Pod pod) {
        return pod.getStatus() != null && "Pending".equals(pod.getStatus().getPhase())
                && pod.getStatus().getStartTime() == null;
    }
}
