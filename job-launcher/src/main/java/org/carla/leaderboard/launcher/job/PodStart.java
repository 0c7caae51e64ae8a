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
 * Whether a run's pod has started running, and when: only once every container of it has started (running, or ended
 * after a run), its sidecars included ({@link PodContainers}), as the kubelet's phase says Running. A pod Pending has
 * not: waiting for a node, for its init containers, or with a container that never started — an image that cannot be
 * pulled ({@code ErrImagePull}, {@code ImagePullBackOff}) while CARLA and logcopy already run is no start of the run.
 * The start is the kubelet's {@code status.startTime} (the pod reached its node: the wait for capacity is over), else
 * the earliest start of one of its containers.
 */
public final class PodStart {

    private PodStart() {
    }

    /** When the pod started running; empty while it has not (or the pod is unknown). */
    public static Optional<Instant> of(Pod pod) {
        if (pod == null || pod.getStatus() == null) {
            return Optional.empty();
        }
        List<ContainerStatus> statuses = containers(pod).toList();
        if (statuses.isEmpty() || !statuses.stream().allMatch(PodStart::ran)) {
            return Optional.empty();
        }
        Instant kubelet = JobEnd.instant(pod.getStatus().getStartTime());
        if (kubelet != null) {
            return Optional.of(kubelet);
        }
        return statuses.stream().map(PodStart::startedAt).filter(Objects::nonNull).min(Comparator.naturalOrder())
                .or(() -> Optional.of(Instant.now()));
    }

    /** The pod of a Job the start is read from: the one that started first among those that did. */
    public static Optional<Pod> firstStarted(List<Pod> pods) {
        Pod first = null;
        Instant firstStart = null;
        for (Pod pod : pods) {
            Optional<Instant> start = of(pod);
            if (start.isPresent() && (firstStart == null || start.get().isBefore(firstStart))) {
                first = pod;
                firstStart = start.get();
            }
        }
        return Optional.ofNullable(first);
    }

    /** The pods that started, in the order they did. */
    public static List<Pod> inStartOrder(List<Pod> pods) {
        return pods.stream().filter(pod -> of(pod).isPresent())
                .sorted(Comparator.comparing(pod -> of(pod).orElseThrow())).toList();
    }

    /** When the Job's run started: its {@link #firstStarted} pod's start. */
    public static Optional<Instant> first(List<Pod> pods) {
        return firstStarted(pods).flatMap(PodStart::of);
    }

    private static Stream<ContainerStatus> containers(Pod pod) {
        return PodContainers.statuses(pod).stream();
    }

    /** Running, ended, or waiting to run again: not a container still waiting for its first run (its image). */
    private static boolean ran(ContainerStatus status) {
        var state = status.getState();
        var last = status.getLastState();
        return state != null && (state.getRunning() != null || state.getTerminated() != null)
                || last != null && last.getTerminated() != null;
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
