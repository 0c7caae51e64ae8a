package org.carla.leaderboard.launcher.job;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * Whether a run's pod has started running, and when: a pod Pending (waiting for a node, for its images, for its init
 * containers) has not. The start is the kubelet's {@code status.startTime} (the pod reached its node: the wait for
 * capacity is over), else the earliest start of one of its containers.
 */
public final class PodStart {

    private PodStart() {
    }

    /** When the pod started running; empty while it has not (or the pod is unknown). */
    public static Optional<Instant> of(Pod pod) {
        if (pod == null || pod.getStatus() == null) {
            return Optional.empty();
        }
        String phase = pod.getStatus().getPhase();
        List<Instant> containerStarts = containers(pod).map(PodStart::startedAt).filter(Objects::nonNull).toList();
        boolean ran = "Running".equals(phase) || "Succeeded".equals(phase) || !containerStarts.isEmpty();
        if (!ran) {
            return Optional.empty();
        }
        Instant kubelet = JobEnd.instant(pod.getStatus().getStartTime());
        if (kubelet != null) {
            return Optional.of(kubelet);
        }
        return containerStarts.stream().min(Comparator.naturalOrder()).or(() -> Optional.of(Instant.now()));
    }

    /** The pod of a Job the start is read from: the one that started first among those that did. */
    public static Optional<Instant> first(List<Pod> pods) {
        return pods.stream().map(PodStart::of).flatMap(Optional::stream).min(Comparator.naturalOrder());
    }

    private static Stream<ContainerStatus> containers(Pod pod) {
        List<ContainerStatus> statuses = pod.getStatus().getContainerStatuses();
        return statuses == null ? Stream.empty() : statuses.stream();
    }

    private static Instant startedAt(ContainerStatus status) {
        var state = status.getState();
        if (state != null && state.getRunning() != null) {
            return JobEnd.instant(state.getRunning().getStartedAt());
        }
        if (state != null && state.getTerminated() != null) {
            return JobEnd.instant(state.getTerminated().getStartedAt());
        }
        var last = status.getLastState();
        return last != null && last.getTerminated() != null ? JobEnd.instant(last.getTerminated().getStartedAt()) : null;
    }
}
