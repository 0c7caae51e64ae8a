package org.carla.leaderboard.launcher.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/**
 * A run starts when its pod's every container has started, not when the first one does; its pod ends when every one
 * of them has ended (sidecars included in both, one-off init containers in neither).
 */
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

    @Test
    void aSidecarIsAContainerOfTheRunAndAOneOffInitContainerIsNot() {
        Pod waitingSidecar = withSidecars(pod("Pending", running("logcopy")),
                waiting("agent-1", "ImagePullBackOff", false), terminated("private-contents", "10:00:04"));
        assertThat(PodStart.of(waitingSidecar)).as("the agent, a sidecar, never ran").isEmpty();

        Pod running = withSidecars(pod("Running", running("logcopy")), running("agent-1"),
                terminated("private-contents", "10:00:04"));
        assertThat(PodStart.of(running)).contains(Instant.parse(PLACED));

        Pod logcopyDone = withSidecars(pod("Running", terminated("logcopy", "10:30:00")), running("agent-1"),
                terminated("private-contents", "10:00:04"));
        assertThat(PodSpans.of(List.of(logcopyDone), java.util.Map.of())).singleElement()
                .satisfies(span -> assertThat(span.endedAt()).as("its sidecar still runs").isNull());
        Pod ended = withSidecars(pod("Succeeded", terminated("logcopy", "10:30:00")), terminated("agent-1", "10:30:02"),
                terminated("private-contents", "10:00:04"));
        assertThat(PodSpans.of(List.of(ended), java.util.Map.of())).singleElement()
                .satisfies(span -> assertThat(span.endedAt()).isEqualTo(Instant.parse("2026-11-27T10:30:02Z")));
    }

    /** The pod with {@code init} as its init containers, agent-1 a sidecar ({@code restartPolicy: Always}). */
    private static Pod withSidecars(Pod pod, ContainerStatus... init) {
        var spec = new io.fabric8.kubernetes.api.model.PodSpec();
        for (ContainerStatus status : init) {
            spec.getInitContainers().add(new io.fabric8.kubernetes.api.model.ContainerBuilder()
                    .withName(status.getName()).withRestartPolicy(status.getName().equals("agent-1") ? "Always" : null)
                    .build());
        }
        pod.setSpec(spec);
        pod.getStatus().setInitContainerStatuses(List.of(init));
        return pod;
    }

    private static ContainerStatus terminated(String name, String finishedAt) {
        return new ContainerStatusBuilder().withName(name).withNewState().withNewTerminated().withExitCode(0)
                .withStartedAt("2026-11-27T10:00:01Z").withFinishedAt("2026-11-27T" + finishedAt + "Z").endTerminated()
                .endState().build();
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
