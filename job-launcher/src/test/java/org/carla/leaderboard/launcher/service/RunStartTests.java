package org.carla.leaderboard.launcher.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.RunImages.ContainerImage;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Running means running: {@code job-started} is published when the run's pod runs, once per run, with the images it
 * runs in the record, and from then on the track's deadline counts from the pod's start, not from the Job's.
 */
@QuarkusTest
@LauncherStack
class RunStartTests extends LauncherStory {

    @Test
    void aPodWaitingForCapacityIsNotAStartAndARunningOneIsOnceWithTheDeadlineFromItsStart() {
        LaunchRequest request = request("waits for a GPU", 1, 3600);
        String name = launched(request);
        Instant jobStart = Instant.now().minus(3, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS);
        jobStartedAt(name, jobStart);
        String pod = podPending(name);

        assertStaysCount(request, JobStarted.class, 0);
        Instant podStart = jobStart.plus(150, ChronoUnit.MINUTES);
        podRunning(pod, podStart);

        JobStarted started = awaitStarted(request);
        assertThat(started.podStartedAt()).isEqualTo(podStart);
        assertThat(started.jobName()).isEqualTo(name);
        assertThat(started.run()).isEqualTo(1);
        assertThat(started.submission()).isEqualTo(request.submission());
        assertThat(RunImages.of(recordOf(request.submission()).get(SubmissionTable.RUN_IMAGES)))
                .as("the record names what the pod ran, by digest, before job-started is published")
                .contains(new RunImages(1, List.of(new ContainerImage(pod, "agent-1", "agent", AGENT_IMAGE_ID))));
        await().atMost(Duration.ofSeconds(10)).until(() -> JobMetadata.startReported(job(name)).isPresent());
        Job job = job(name);
        assertThat(jobStart.plusSeconds(job.getSpec().getActiveDeadlineSeconds()))
                .as("the track's hour from the pod's start").isEqualTo(podStart.plusSeconds(3600));

        podRunning(pod, podStart); // the kubelet reports again; so does a restarted container
        assertStaysCount(request, JobStarted.class, 1);
    }

    @Test
    void aPodThatStartedWhileTheLauncherWasStoppedIsAnnouncedAfterItsRestartOnce() {
        LaunchRequest request = request("started during a restart");
        String name = launched(request);
        String pod = podPending(name);
        Instant podStart = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        watcher.stop();
        try {
            podRunning(pod, podStart);
            assertStaysCount(request, JobStarted.class, 0);
        } finally {
            watcher.start();
        }

        assertThat(awaitStarted(request).podStartedAt()).isEqualTo(podStart);
        assertStaysCount(request, JobStarted.class, 1);
    }

    @Test
    void aStartAnnouncedBeforeARestartIsNotAnnouncedAgain() {
        LaunchRequest request = request("announced before a restart");
        String name = launched(request);
        String pod = podPending(name);
        podRunning(pod, Instant.now());
        awaitStarted(request);
        await().atMost(Duration.ofSeconds(10)).until(() -> JobMetadata.startReported(job(name)).isPresent());

        watcher.stop();
        watcher.start();

        assertStaysCount(request, JobStarted.class, 1);
    }

    @Test
    void aPodThatReplacesALostOneAddsWhatItRanToTheRunsImagesOnce() {
        LaunchRequest request = request("lost its node");
        String name = launched(request);
        String lost = podPending(name);
        Instant start = Instant.now().minusSeconds(600).truncatedTo(ChronoUnit.SECONDS);
        podRunning(lost, start);
        awaitStarted(request);

        // The node is gone; the controller's new pod pulled what the agent's tag names now.
        String replacement = podPending(name);
        String repushed = "docker.io/library/agent@sha256:" + "7a".repeat(32);
        podRunning(replacement, start.plusSeconds(300), repushed);

        var both = new RunImages(1, List.of(new ContainerImage(lost, "agent-1", "agent", AGENT_IMAGE_ID),
                new ContainerImage(replacement, "agent-1", "agent", repushed)));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> RunImages.of(recordOf(request.submission()).get(SubmissionTable.RUN_IMAGES)),
                        images -> images.equals(Optional.of(both)));
        podRunning(replacement, start.plusSeconds(300), repushed); // the kubelet reports again
        podRunning(lost, start);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> RunImages.of(recordOf(request.submission()).get(SubmissionTable.RUN_IMAGES)),
                        images -> images.equals(Optional.of(both)));
        assertStaysCount(request, JobStarted.class, 1);
    }
}
