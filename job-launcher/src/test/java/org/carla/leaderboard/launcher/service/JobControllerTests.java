package org.carla.leaderboard.launcher.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.JobFinished.Outcome;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.localstack.KubernetesComponent;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.carla.leaderboard.localstack.testing.LocalStackResource;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The launcher's Jobs under the Job controller as it is (the local stack's Job runner, one GPU node). The pairs are
 * sidecars, restarted in place after any exit; logcopy, the pod's one regular container, ends the pod: 0 once every
 * pair is done, its restart-limit code once the pairs' restarts reach {@code RESTART_LIMIT}, on which the Job's
 * podFailurePolicy fails the run; a pod lost with its node is not counted. A participant's image that cannot be pulled
 * ends the run, and frees the node, within the launcher's grace. Every container is a shell one-liner keyed on its
 * role ({@link ShellRoles}); a pair crashes (exit 3) the first {@code $CRASHES} times (the image's tag).
 */
@QuarkusTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@WithTestResource(value = LocalStackResource.class, initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,kubernetes"),
        @ResourceArg(name = "local-stack.kubernetes.gpu-capacity", value = "1"),
        @ResourceArg(name = "local-stack.images.every-image.image", value = ".*"),
        @ResourceArg(name = "local-stack.images.every-image.command./usr/local/bin/pod-runtime", value = "/bin/true"),
        // init makes the status folder every container writes in, as pod-runtime's does
        @ResourceArg(name = "local-stack.images.every-image.command./opt/pod-runtime/pod-runtime",
                value = ShellRoles.SH + ShellRoles.INIT + "sleep 1" + ShellRoles.END),
        @ResourceArg(name = "local-stack.images.pod-runtime.image", value = "carla-leaderboard/pod-runtime:.*"),
        @ResourceArg(name = "local-stack.images.pod-runtime.order", value = "10"),
        @ResourceArg(name = "local-stack.images.pod-runtime.command./usr/local/bin/pod-runtime", value = "/bin/true"),
        @ResourceArg(name = "local-stack.images.pod-runtime.command./opt/pod-runtime/pod-runtime",
                value = ShellRoles.LOGCOPY),
        // the simulator and the agent of a pair that crashes n times (the image's tag), then drives to the end
        @ResourceArg(name = "local-stack.images.crash0.image", value = "registry\\.example\\.org/crashing/[a-z]+:0"),
        @ResourceArg(name = "local-stack.images.crash0.order", value = "10"),
        @ResourceArg(name = "local-stack.images.crash0.command./opt/pod-runtime/pod-runtime",
                value = JobControllerTests.CRASHING),
        @ResourceArg(name = "local-stack.images.crash0.env.CRASHES", value = "0"),
        @ResourceArg(name = "local-stack.images.crash0.env.DRIVE", value = "0"),
        @ResourceArg(name = "local-stack.images.crash1.image", value = "registry\\.example\\.org/crashing/[a-z]+:1"),
        @ResourceArg(name = "local-stack.images.crash1.order", value = "10"),
        @ResourceArg(name = "local-stack.images.crash1.command./opt/pod-runtime/pod-runtime",
                value = JobControllerTests.CRASHING),
        @ResourceArg(name = "local-stack.images.crash1.env.CRASHES", value = "1"),
        @ResourceArg(name = "local-stack.images.crash1.env.DRIVE", value = "0"),
        @ResourceArg(name = "local-stack.images.crash2.image", value = "registry\\.example\\.org/crashing/[a-z]+:2"),
        @ResourceArg(name = "local-stack.images.crash2.order", value = "10"),
        @ResourceArg(name = "local-stack.images.crash2.command./opt/pod-runtime/pod-runtime",
                value = JobControllerTests.CRASHING),
        @ResourceArg(name = "local-stack.images.crash2.env.CRASHES", value = "2"),
        // drives 30 s once restarted, as a real pair does for minutes: logcopy sees the restart limit reached while
        // the pair drives, not after it is done (pairs that are all done restart no more, and the run finishes)
        @ResourceArg(name = "local-stack.images.crash2.env.DRIVE", value = "30"),
        @ResourceArg(name = "local-stack.images.crash5.image", value = "registry\\.example\\.org/crashing/[a-z]+:5"),
        @ResourceArg(name = "local-stack.images.crash5.order", value = "10"),
        @ResourceArg(name = "local-stack.images.crash5.command./opt/pod-runtime/pod-runtime",
                value = JobControllerTests.CRASHING),
        @ResourceArg(name = "local-stack.images.crash5.env.CRASHES", value = "5"),
        @ResourceArg(name = "local-stack.images.crash5.env.DRIVE", value = "0"),
        // a pair that drives for 10 s: long enough to lose its node
        @ResourceArg(name = "local-stack.images.slow.image", value = "registry\\.example\\.org/slow/[a-z]+:.*"),
        @ResourceArg(name = "local-stack.images.slow.order", value = "10"),
        @ResourceArg(name = "local-stack.images.slow.command./opt/pod-runtime/pod-runtime",
                value = JobControllerTests.SLOW),
        @ResourceArg(name = "local-stack.images.unpullable.image", value = "registry\\.example\\.org/missing/.*"),
        @ResourceArg(name = "local-stack.images.unpullable.order", value = "10"),
        @ResourceArg(name = "local-stack.images.unpullable.pull-error",
                value = "registry.example.org/missing/agent:v1: not found") })
class JobControllerTests extends LauncherStory {

    /**
     * A pair container: its start file, exit 3 for the first {@code $CRASHES} starts, then a drive of {@code $DRIVE}
     * seconds, its done file and the hold. Reading the CARLA image's version does not crash.
     */
    static final String CRASHING = ShellRoles.SH + "[ $0 = carla-version ] && exit 0; " + ShellRoles.START
            + "[ $k -lt $CRASHES ] && exit 3; sleep $DRIVE; " + ShellRoles.DONE_AND_HOLD + ShellRoles.END;

    /** A pair container that drives for 10 s, then is done and holds. */
    static final String SLOW = ShellRoles.SH + "[ $0 = carla-version ] && exit 0; sleep 10; " + ShellRoles.DONE_AND_HOLD
            + ShellRoles.END;

    @Test
    void aTrackAllowingOneResumeSurvivesOnePairCrashAndFailsAtTheSecond() {
        LaunchRequest once = crashing("crashes once", 1);
        LaunchRequest twice = crashing("crashes twice", 2);

        launched(once);
        JobFinished survived = awaitFinished(once);
        assertThat(survived.outcome()).as("reason %s", survived.reason()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(survived.containers()).filteredOn(c -> c.name().endsWith("-1"))
                .extracting(ContainerOutcome::restartCount).containsOnly(1);

        launched(twice);
        JobFinished failed = awaitFinished(twice);
        assertThat(failed.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(failed.reason()).isEqualTo("PodFailurePolicy");
    }

    @Test
    void aRunWhosePairsSpendTheCrashBudgetFailsAndItsReportSaysHowItsContainersFailed() {
        LaunchRequest request = crashing("keeps crashing", 5);
        launched(request);

        JobFinished failed = awaitFinished(request);

        assertThat(failed.reason()).isEqualTo("PodFailurePolicy");
        assertThat(failed.containers()).filteredOn(c -> c.name().equals("logcopy")).singleElement()
                .satisfies(logcopy -> assertThat(logcopy.lastExitCode()).isEqualTo(3));
        // The agent's last end is its crash (3), or the pod's end (SIGTERM, 143) when logcopy's exit caught it
        // started again: the kubelet stops the sidecars once the pod's one regular container has ended.
        assertThat(failed.containers()).filteredOn(c -> c.name().equals("agent-1")).singleElement()
                .satisfies(agent -> {
                    assertThat(agent.lastExitCode()).isIn(3, 143);
                    assertThat(agent.restartCount()).isPositive();
                });
    }

    @Test
    void anImageThatCannotBePulledEndsTheRunWithoutAStartAndFreesTheNode() {
        LaunchRequest unpullable = LaunchRequest.of(crashing("cannot pull", 0).submission(), 1,
                "registry.example.org/missing/agent:v1", false, track("registry.example.org/crashing/carla:0", 3600),
                Instant.now());
        LaunchRequest next = crashing("waits for the node", 0);
        String name = launched(unpullable);
        launched(next);

        JobFinished ended = awaitFinished(unpullable);

        assertThat(ended.outcome()).isEqualTo(Outcome.DELETED);
        assertThat(ended.reason()).isEqualTo(JobEnd.IMAGE_PULL_FAILED);
        assertThat(ended.startedAt()).isNull();
        assertThat(events().eventsNow(pk(unpullable))).noneMatch(JobStarted.class::isInstance);
        assertThat(ended.containers()).filteredOn(c -> c.name().equals("agent-1")).singleElement()
                .satisfies(agent -> {
                    assertThat(agent.image()).isEqualTo("registry.example.org/missing/agent:v1");
                    assertThat(agent.lastReason()).isIn("ErrImagePull", "ImagePullBackOff");
                    assertThat(agent.message()).isEqualTo("failed to pull and unpack image"
                            + " \"registry.example.org/missing/agent:v1\": failed to resolve reference"
                            + " \"registry.example.org/missing/agent:v1\": registry.example.org/missing/agent:v1:"
                            + " not found");
                });
        awaitGone(name);
        // the node it held runs the next run
        assertThat(awaitFinished(next).outcome()).isEqualTo(Outcome.SUCCEEDED);
    }

    @Test
    void aRunOfTwoPodsReportsEachPodsTimeOnItsNodeAndWhichPodEachContainerRanIn() {
        LaunchRequest base = crashing("two pods", 1);
        var one = base.trackSpec();
        var track = new TrackSpec(one.leaderboard(), one.track(), one.bucket(), one.leaderboardVersion(),
                one.routesFile(), one.scenariosFile(), one.routes(), one.repetitions(), 1, "g5.xlarge",
                one.simulatorImage(), one.leaderboardImage(), one.podRuntimeImage(), one.renderer(),
                one.deadlineSeconds(), one.allowedResumes(), false, null, Map.of(), "dynamic", "route-ledger", 2);
        LaunchRequest request = LaunchRequest.of(base.submission(), 1, base.imageUri(), false, track,
                base.requestedAt());
        // Two GPU nodes: both pods run at once. (On one, index 0 would end with the ledger settled before index 1
        // ran, and the launcher would end the run: JobLifecycleTests.)
        stack.jobRunner().gpuCapacity(2);
        JobFinished finished;
        String name;
        try {
            name = launched(request);
            finished = awaitFinished(request);
        } finally {
            stack.jobRunner().gpuCapacity(1);
        }

        assertThat(finished.outcome()).as("reason %s", finished.reason()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(finished.severalPods()).isTrue();
        // Each pod held its node from its start to its containers' end.
        assertThat(finished.pods()).extracting(JobFinished.PodSpan::index).containsExactlyInAnyOrder(0, 1);
        assertThat(finished.pods()).allSatisfy(pod -> {
            assertThat(pod.name()).startsWith(name + "-" + pod.index() + "-");
            assertThat(pod.startedAt()).isNotNull();
            assertThat(pod.endedAt()).isAfterOrEqualTo(pod.startedAt()).isBeforeOrEqualTo(finished.finishedAt());
        });
        // Each pod's pair crashed once in its own volume.
        assertThat(finished.containers()).filteredOn(c -> c.name().equals("agent-1"))
                .extracting(ContainerOutcome::pod, ContainerOutcome::restartCount)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(0, 1),
                        org.assertj.core.groups.Tuple.tuple(1, 1));
    }

    @Test
    void aRunWhoseNodeIsLostMoreOftenThanItsBackoffLimitAllowsIsNotFailedForItAndFinishes() {
        // A track allowing no resume: backoffLimit 0, so a pod the controller counted as failed would fail the run.
        // A pod lost with its node is DisruptionTarget, which the podFailurePolicy ignores.
        LaunchRequest base = request("loses its node twice", 1, 3600);
        LaunchRequest request = LaunchRequest.of(base.submission(), 1, "registry.example.org/slow/agent:v1", false,
                track("registry.example.org/slow/carla:v1", 3600, 0), base.requestedAt());
        String name = launched(request);
        assertThat(job(name).getSpec().getBackoffLimit()).isZero();

        for (int loss = 1; loss <= 2; loss++) {
            await().atMost(Duration.ofMinutes(2)).until(() -> stack.jobRunner().loseNode(name));
        }

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).as("reason %s", finished.reason()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(finished.pods()).as("the two lost pods and the one that finished").hasSize(3);
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void theRunsAboveUsedEveryPermissionTheLaunchersRoleGrants() {
        var launcher = ServiceAccount.ofClassPath(getClass().getClassLoader()).orElseThrow();
        assertThat(stack.component(KubernetesComponent.NAME, KubernetesComponent.class).api().unusedGrants(launcher))
                .as("deploy/'s Role grants what the launcher never asks: a permission to drop").isEmpty();
    }

    /** A run of one pair whose simulator and agent both crash {@code crashes} times, on a track allowing one resume. */
    private LaunchRequest crashing(String teamName, int crashes) {
        LaunchRequest base = request(teamName, 1, 3600);
        return LaunchRequest.of(base.submission(), 1, "registry.example.org/crashing/agent:" + crashes, false,
                track("registry.example.org/crashing/carla:" + crashes, 3600), base.requestedAt());
    }

    private static TrackSpec track(String simulatorImage, long deadlineSeconds) {
        return track(simulatorImage, deadlineSeconds, 1);
    }

    private static TrackSpec track(String simulatorImage, long deadlineSeconds, int allowedResumes) {
        return new TrackSpec("leaderboard-20", "SENSORS", "carla-leaderboard-20", LeaderboardVersion.V2_0,
                "/workspace/leaderboard/data/routes_testing.xml", null, 4, 1, 1, "g5.12xlarge", simulatorImage,
                "carla-leaderboard/leaderboard-20:latest", "carla-leaderboard/pod-runtime:latest", "vulkan",
                deadlineSeconds, allowedResumes, false, null, Map.of(), null, null, 1);
    }
}
