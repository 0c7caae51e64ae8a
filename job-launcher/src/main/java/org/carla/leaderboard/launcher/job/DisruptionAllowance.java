package org.carla.leaderboard.launcher.job;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/**
 * A pod disrupted by its node's loss, a drain, an eviction or a spot interruption ({@code DisruptionTarget}) is not a
 * failure of the run: the Job controller counts it against {@code backoffLimit} all the same (only a
 * {@code podFailurePolicy} rule can ignore it, and that needs {@code restartPolicy: Never}, which would take the
 * in-place restarts of a crashed pair away). So the launcher raises the Job's {@code backoffLimit} by one for each pod
 * it sees disrupted, and names the pod in {@link JobMetadata#DISRUPTED_PODS}: counted once, across restarts of the
 * launcher. The raise may come after the controller counted the pod; it cannot fail the Job first: with k disruptions
 * counted and the k-th not yet allowed for, the controller fails a Job only when k failed pods exceed
 * {@code base + k - 1}, and the base limit is at least 1.
 */
public final class DisruptionAllowance {

    private DisruptionAllowance() {
    }

    /** The pod's {@code DisruptionTarget} condition when it is True: the pod was disrupted. */
    public static Optional<PodCondition> disruption(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getConditions().stream()
                .filter(c -> "DisruptionTarget".equals(c.getType()) && "True".equals(c.getStatus())).findFirst();
    }

    /** Whether the pod was disrupted ({@link #disruption}). */
    public static boolean disrupted(Pod pod) {
        return disruption(pod).isPresent();
    }

    /** The Job's {@code backoffLimit}; the API server's default (6) when unset. */
    public static int limit(Job job) {
        return Objects.requireNonNullElse(job.getSpec().getBackoffLimit(), 6);
    }

    /** Whether the Job has allowed for the pod's disruption already. */
    public static boolean allowed(Job job, String podName) {
        return JobMetadata.disruptedPods(job).contains(podName);
    }

    /**
     * The JSON patch that allows for {@code podName}'s disruption in the Job as read: its {@code test} of the limit
     * makes the patch fail, rather than count twice, if the Job changed since it was read. Empty when the pod was
     * allowed for already.
     */
    public static Optional<List<Map<String, Object>>> patch(Job job, String podName) {
        if (allowed(job, podName)) {
            return Optional.empty();
        }
        int limit = limit(job);
        var pods = new ArrayList<>(JobMetadata.disruptedPods(job));
        pods.add(podName);
        var operations = new ArrayList<Map<String, Object>>();
        operations.add(Map.of("op", "test", "path", "/spec/backoffLimit", "value", limit));
        operations.add(Map.of("op", "replace", "path", "/spec/backoffLimit", "value", limit + 1));
        if (job.getMetadata().getAnnotations() == null) {
            operations.add(Map.of("op", "add", "path", "/metadata/annotations",
                    "value", Map.of(JobMetadata.DISRUPTED_PODS, String.join(",", pods))));
        } else {
            operations.add(Map.of("op", "add", "path", JobMetadata.annotationPath(JobMetadata.DISRUPTED_PODS),
                    "value", String.join(",", pods)));
        }
        return Optional.of(List.copyOf(operations));
    }
}
