package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/** The Job controller's clock across a suspension, and a pod's status as the kubelet writes it while it starts. */
class JobLifecycleTests extends LocalJobRunnerFixture {

    @Test
    void suspendingDeletesThePodAndResumingRestartsTheClock() {
        Job job = job("paused", 0, 3600L, List.of(), List.of(host("sim", "sleep", "300")));
        job.getSpec().getTemplate().getSpec().setTerminationGracePeriodSeconds(1L);
        client.batch().v1().jobs().resource(job).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> runner.processes().size() == 1);
        long firstPid = runner.processes().get(0).pid();
        String firstPod = onlyPod(jobs().withName("paused").get()).getMetadata().getName();
        String firstStart = jobs().withName("paused").get().getStatus().getStartTime();

        suspend("paused", true);

        await().atMost(Duration.ofSeconds(30)).until(() -> client.pods().withLabel("job-name", "paused").list()
                .getItems().isEmpty() && JobStatusWriter.suspended(jobs().withName("paused").get()));
        Job suspended = jobs().withName("paused").get();
        assertThat(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(condition(suspended, "Suspended").getReason()).isEqualTo("JobSuspended");
        assertThat(suspended.getStatus().getActive()).isNull();
        assertThat(suspended.getStatus().getStartTime()).isEqualTo(firstStart);
        // Times are whole seconds: resume in a later one, so a reset start time shows.
        await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().getEpochSecond()
                > Instant.parse(firstStart).getEpochSecond());

        suspend("paused", false);

        await().atMost(Duration.ofSeconds(30)).until(() -> runner.processes().size() == 1);
        Job resumed = jobs().withName("paused").get();
        assertThat(condition(resumed, "Suspended").getStatus()).isEqualTo("False");
        assertThat(condition(resumed, "Suspended").getReason()).isEqualTo("JobResumed");
        assertThat(Instant.parse(resumed.getStatus().getStartTime())).isAfter(Instant.parse(firstStart));
        assertThat(onlyPod(resumed).getMetadata().getName()).isNotEqualTo(firstPod);
    }

    @Test
    void aJobCreatedSuspendedHasNoStartTimeUntilResumed() {
        Job job = job("queued", 0, null, List.of(), List.of(host("main", "true")));
        job.getSpec().setSuspend(true);
        client.batch().v1().jobs().resource(job).create();

        await().atMost(Duration.ofSeconds(30)).until(() -> JobStatusWriter.suspended(jobs().withName("queued").get()));
        assertThat(jobs().withName("queued").get().getStatus().getStartTime()).isNull();
        assertThat(client.pods().withLabel("job-name", "queued").list().getItems()).isEmpty();

        suspend("queued", false);

        Job done = awaitCondition("queued", "Complete");
        assertThat(done.getStatus().getStartTime()).isNotNull();
        assertThat(condition(done, "Suspended").getReason()).isEqualTo("JobResumed");
    }

    @Test
    void aPodIsPendingWhileItsInitContainersRunThenRunningWithItsConditions() {
        Job job = job("starting", 2, null, List.of(host("init", "sleep", "300")), List.of(host("main", "sleep", "300")));
        job.getSpec().getTemplate().getSpec().setTerminationGracePeriodSeconds(1L);
        client.batch().v1().jobs().resource(job).create();

        // The runner starts the process, then writes the status that says so: wait for what an observer sees.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> runner.processes().size() == 1
                && onlyPod(jobs().withName("starting").get()).getStatus().getInitContainerStatuses().get(0).getState()
                        .getRunning() != null);
        Pod initializing = onlyPod(jobs().withName("starting").get());
        assertThat(initializing.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(initializing.getSpec().getNodeName()).isEqualTo(PodObjects.NODE_NAME);
        assertThat(initializing.getStatus().getStartTime()).isNotNull();
        assertThat(GpuCapacityTests.condition(initializing, "PodScheduled").getStatus()).isEqualTo("True");
        assertThat(GpuCapacityTests.condition(initializing, "Initialized").getReason())
                .isEqualTo("ContainersNotInitialized");
        assertThat(GpuCapacityTests.condition(initializing, "Initialized").getMessage())
                .isEqualTo("containers with incomplete status: [init]");
        assertThat(GpuCapacityTests.condition(initializing, "Ready").getMessage())
                .isEqualTo("containers with unready status: [main]");
        assertThat(containerStatus(initializing, "main").getState().getWaiting().getReason())
                .isEqualTo("PodInitializing");
        ContainerStatus init = initializing.getStatus().getInitContainerStatuses().get(0);
        assertThat(init.getState().getRunning().getStartedAt()).isNotNull();

        // The init container is OOM-killed: it restarts (OnFailure) and the pod stays Pending with its restart count.
        assertThat(runner.killContainer("starting", "init", true)).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> onlyPod(jobs().withName("starting").get()).getStatus()
                .getInitContainerStatuses().get(0).getRestartCount() == 1);
        assertThat(jobs().withName("starting").get().getStatus().getConditions()).isNullOrEmpty();
        ContainerStatus restarted = onlyPod(jobs().withName("starting").get()).getStatus().getInitContainerStatuses()
                .get(0);
        assertThat(restarted.getLastState().getTerminated().getReason()).isEqualTo("OOMKilled");
        assertThat(restarted.getLastState().getTerminated().getExitCode()).isEqualTo(137);

        client.batch().v1().jobs().resource(job("started", 0, null, List.of(host("init", "true")),
                List.of(host("main", "sleep", "300")))).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> jobs().withName("started").get().getStatus() != null
                && Integer.valueOf(1).equals(jobs().withName("started").get().getStatus().getReady())
                && "Running".equals(onlyPod(jobs().withName("started").get()).getStatus().getPhase()));
        Pod running = onlyPod(jobs().withName("started").get());
        assertThat(running.getStatus().getConditions()).extracting(c -> c.getType() + "=" + c.getStatus())
                .containsExactly("PodReadyToStartContainers=True", "Initialized=True", "Ready=True",
                        "ContainersReady=True", "PodScheduled=True");
        assertThat(containerStatus(running, "main").getState().getRunning().getStartedAt()).isNotNull();
        assertThat(containerStatus(running, "main").getStarted()).isTrue();
        assertThat(running.getStatus().getInitContainerStatuses().get(0).getState().getTerminated().getReason())
                .isEqualTo("Completed");
    }
}
