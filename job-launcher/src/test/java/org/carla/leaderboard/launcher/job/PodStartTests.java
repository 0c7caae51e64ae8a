package org.carla.leaderboard.launcher.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/** A run starts when its pod's every container has started, not when the first one does. */
class PodStartTests {

    private static final String PLACED = "2026-11-27T10:00:00Z";

    @Test
    void aContainerWhoseImageCannotBePulledIsNoStartThoughTheOthersRun() {
        Pod pod = pod("Pending", running("simulator-1"), running("logcopy"),
                waiting("agent-1", "ImagePullBackOff", false));

        assertThat(PodStart.of(pod)).isEmpty();
    }

    @Test
    void everyContainerStartedIsTheKubeletsStartOfThePodEvenWhileOneWaitsToRestart() {
        assertThat(PodStart.of(pod("Running", running("simulator-1"), running("agent-1"))))
                .contains(Instant.parse(PLACED));
        assertThat(PodStart.of(pod("Running", running("simulator-1"), waiting("agent-1", "CrashLoopBackOff", true))))
                .contains(Instant.parse(PLACED));
    }

    private static Pod pod(String phase, ContainerStatus... containers) {
        return new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewStatus().withPhase(phase)
                .withStartTime(PLACED).withContainerStatuses(List.of(containers)).endStatus().build();
    }

    private static ContainerStatus running(String name) {
        return new ContainerStatusBuilder().withName(name).withNewState().withNewRunning()
                .withStartedAt("2026-11-27T10:00:05Z").endRunning().endState().build();
    }

    private static ContainerStatus waiting(String name, String reason, boolean ranBefore) {
        var status = new ContainerStatusBuilder().withName(name).withNewState().withNewWaiting().withReason(reason)
                .endWaiting().endState();
        if (ranBefore) {
            status.withNewLastState().withNewTerminated().withExitCode(3).withStartedAt("2026-11-27T10:00:05Z")
                    .endTerminated().endLastState();
        }
        return status.build();
    }
}
