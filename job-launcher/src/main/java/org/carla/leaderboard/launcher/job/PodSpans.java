package org.carla.leaderboard.launcher.job;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.carla.leaderboard.domain.event.JobFinished.PodSpan;
import org.carla.leaderboard.domain.pod.JobLabels;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * When each pod of a run held its node, for the GPU-hours of a run of several pods: from its start ({@link PodStart})
 * to its end, the first known of: the last of its containers' ends (sidecars included) once every one has ended; the
 * kubelet's or the pod garbage collector's {@code DisruptionTarget} (the node went, or the pod was evicted); the moment
 * the watch saw its deletion begin. A pod with none of these ran until the Job ended ({@code null}).
 */
public final class PodSpans {

    private static final String COMPLETION_INDEX = JobLabels.COMPLETION_INDEX;

    private PodSpans() {
    }

    /** Every pod, in the order of creation. {@code deletions}: when the watch saw each pod's deletion begin. */
    public static List<PodSpan> of(List<Pod> pods, Map<String, Instant> deletions) {
        var spans = new ArrayList<PodSpan>(pods.size());
        pods.stream().sorted(Comparator.comparing((Pod pod) -> String.valueOf(pod.getMetadata().getCreationTimestamp())))
                .forEach(pod -> spans.add(new PodSpan(index(pod).orElse(null), pod.getMetadata().getName(),
                        PodStart.of(pod).orElse(null), end(pod, deletions.get(pod.getMetadata().getName())))));
        return spans;
    }

    /** The completion index of an Indexed Job's pod; empty for a NonIndexed Job's (or an unreadable annotation). */
    public static Optional<Integer> index(Pod pod) {
        var annotations = pod.getMetadata() == null ? null : pod.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(COMPLETION_INDEX);
        if (value == null && pod.getMetadata() != null && pod.getMetadata().getLabels() != null) {
            value = pod.getMetadata().getLabels().get(COMPLETION_INDEX);
        }
        if (value == null || !value.matches("[0-9]{1,9}")) {
            return Optional.empty();
        }
        return Optional.of(Integer.parseInt(value));
    }

    private static Instant end(Pod pod, Instant deletionSeen) {
        if (pod.getStatus() == null) {
            return deletionSeen;
        }
        List<ContainerStatus> statuses = PodContainers.statuses(pod);
        if (!statuses.isEmpty() && statuses.stream().allMatch(s -> s.getState() != null
                && s.getState().getTerminated() != null)) {
            Optional<Instant> last = statuses.stream().map(s -> JobEnd.instant(s.getState().getTerminated()
                    .getFinishedAt())).filter(Objects::nonNull).max(Comparator.naturalOrder());
            if (last.isPresent()) {
                return last.get();
            }
        }
        return Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of()).stream()
                .filter(c -> "DisruptionTarget".equals(c.getType()) && "True".equals(c.getStatus())).findFirst()
                .map(c -> JobEnd.instant(c.getLastTransitionTime())).orElse(deletionSeen);
    }
}
