package org.carla.leaderboard.localstack.run;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.pod.JobLabels;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The submissions' pods as the Kubernetes API shows them at one moment (one list of the namespace): which wait for a
 * node (the scheduler's {@code PodScheduled} False, {@code Unschedulable}), which were placed, since when.
 */
public final class SubmissionPods {

    /**
     * One pod of a submission: when it was made, whether the scheduler found it no node, when a kubelet took it, its
     * completion index when its Job is Indexed.
     */
    public record SubmissionPod(String name, String job, String run, Instant created, boolean unschedulable,
            Optional<Instant> placedAt, OptionalInt completionIndex) {

        /** Waiting for a node: the scheduler said none fits (for the local Job runner: no GPU capacity left). */
        public boolean waitsForCapacity() {
            return unschedulable && placedAt.isEmpty();
        }
    }

    private static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

    private final Map<String, List<SubmissionPod>> bySubmission;

    private SubmissionPods(Map<String, List<SubmissionPod>> bySubmission) {
        this.bySubmission = bySubmission;
    }

    /** Every pod of a submission's Job in the namespace now. */
    public static SubmissionPods of(KubernetesClient client, String namespace) {
        var pods = client.pods().inNamespace(namespace).withLabel(JobLabels.SUBMISSION_ID).list().getItems();
        return new SubmissionPods(pods.stream().collect(java.util.stream.Collectors.groupingBy(
                pod -> pod.getMetadata().getLabels().get(JobLabels.SUBMISSION_ID),
                java.util.stream.Collectors.mapping(SubmissionPods::of, java.util.stream.Collectors.toList()))));
    }

    private static SubmissionPod of(Pod pod) {
        var status = pod.getStatus();
        boolean unschedulable = status != null && status.getConditions() != null && status.getConditions().stream()
                .anyMatch(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus())
                        && "Unschedulable".equals(c.getReason()));
        Optional<Instant> placedAt = Optional.ofNullable(status == null ? null : status.getStartTime())
                .map(Instant::parse);
        var labels = pod.getMetadata().getLabels();
        return new SubmissionPod(pod.getMetadata().getName(), labels.getOrDefault(JobLabels.JOB_NAME, ""),
                labels.getOrDefault(JobLabels.RUN, ""), Instant.parse(pod.getMetadata().getCreationTimestamp()),
                unschedulable, placedAt, completionIndex(pod));
    }

    /** The Job controller's {@code batch.kubernetes.io/job-completion-index} annotation, when the pod has one. */
    private static OptionalInt completionIndex(Pod pod) {
        var annotations = pod.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(COMPLETION_INDEX);
        try {
            return value == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(value));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /** The pods of one submission now (none once its Jobs are gone). */
    public List<SubmissionPod> of(String submissionId) {
        return bySubmission.getOrDefault(submissionId, List.of());
    }

    /** Whether a pod of the submission waits for a node now. */
    public boolean waitsForCapacity(String submissionId) {
        return of(submissionId).stream().anyMatch(SubmissionPod::waitsForCapacity);
    }

    /** Whether a pod of the submission was given a node. */
    public boolean placed(String submissionId) {
        return of(submissionId).stream().anyMatch(pod -> pod.placedAt().isPresent());
    }
}
