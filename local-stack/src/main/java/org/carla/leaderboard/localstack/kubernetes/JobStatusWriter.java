package org.carla.leaderboard.localstack.kubernetes;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * Writes Job and Pod status through the {@code /status} subresource the way the Job controller (Kubernetes 1.31+)
 * writes it: {@code startTime}, {@code active}/{@code ready}/{@code succeeded}/{@code failed} counters (zero counters
 * omitted except {@code ready}/{@code terminating}), an Indexed Job's {@code completedIndexes} (omitted while empty),
 * {@code completionTime} on success only, and the terminal
 * conditions preceded by their interim ones ({@code SuccessCriteriaMet} then {@code Complete}; {@code FailureTarget}
 * then {@code Failed}), each with status "True", reason, message, lastProbeTime and lastTransitionTime.
 */
final class JobStatusWriter {

    static final String BACKOFF_LIMIT_EXCEEDED = "BackoffLimitExceeded";
    static final String DEADLINE_EXCEEDED = "DeadlineExceeded";

    private final KubernetesClient client;
    private final String namespace;

    JobStatusWriter(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    static boolean finished(Job job) {
        JobStatus status = job.getStatus();
        if (status == null || status.getConditions() == null) {
            return false;
        }
        return status.getConditions().stream().anyMatch(condition -> "True".equals(condition.getStatus())
                && ("Complete".equals(condition.getType()) || "Failed".equals(condition.getType())));
    }

    /**
     * The Job is active with its pods: start time set now when unset, or reset now when the Job resumes from a
     * suspension (condition {@code Suspended} turns False, {@code JobResumed}), else kept (a runner restart); as many
     * active pods as {@code active} says of the status read (the controller's pods about to be created).
     */
    Job started(String jobName, ToIntFunction<JobStatus> active) {
        return updateJob(jobName, status -> {
            JobCondition suspended = condition(status, "Suspended");
            if (suspended != null && "True".equals(suspended.getStatus())) {
                String now = now();
                replace(status, condition("Suspended", "JobResumed", "Job resumed", now, "False"));
                // The controller's rule: activeDeadlineSeconds counts from the resume, never across a suspension.
                status.setStartTime(now);
            } else if (status.getStartTime() == null) {
                status.setStartTime(now());
            }
            int pods = active.applyAsInt(status);
            status.setActive(pods == 0 ? null : pods);
            status.setReady(0);
            status.setTerminating(0);
            return status;
        });
    }

    /**
     * The Job is suspended: its pod deleted, condition {@code Suspended} True ({@code JobSuspended}), no active pod.
     * {@code startTime} stays as it was (the controller resets it on resume; Kueue, not the controller, clears it).
     */
    Job suspended(String jobName) {
        return updateJob(jobName, status -> {
            JobCondition suspended = condition(status, "Suspended");
            if (suspended == null || !"True".equals(suspended.getStatus())) {
                replace(status, condition("Suspended", "JobSuspended", "Job suspended", now(), "True"));
            }
            status.setActive(null);
            status.setReady(0);
            status.setTerminating(0);
            return status;
        });
    }

    /** Whether the Job's status says it is suspended (condition {@code Suspended} True). */
    static boolean suspended(Job job) {
        JobCondition suspended = job.getStatus() == null ? null : condition(job.getStatus(), "Suspended");
        return suspended != null && "True".equals(suspended.getStatus());
    }

    /**
     * The controller's counters: active and terminating pods, ready ones, failed ones, succeeded ones (an Indexed
     * Job's succeeded indexes) (zero counters omitted), and an Indexed Job's {@code completedIndexes} (null: none).
     */
    record Counts(int active, int ready, int terminating, int failed, int succeeded, String completedIndexes) {
    }

    Job counts(String jobName, Counts counts) {
        return updateJob(jobName, status -> count(status, counts));
    }

    /**
     * The interim {@code FailureTarget}: the Job will fail ({@code reason}), once its active pods, deleted now, are
     * gone (the controller's delayed terminal condition, 1.31).
     */
    Job failureTarget(String jobName, String reason, String message, Counts counts) {
        return updateJob(jobName, status -> {
            status.setConditions(append(status.getConditions(), condition("FailureTarget", reason, message, now())));
            return count(status, counts);
        });
    }

    /** {@code Failed}, with the reason and message of its FailureTarget: no pod of the Job is terminating any more. */
    Job failed(String jobName, String reason, String message, Counts counts) {
        return updateJob(jobName, status -> {
            status.setConditions(append(status.getConditions(), condition("Failed", reason, message, now())));
            return count(status, counts);
        });
    }

    Job complete(String jobName, Counts counts) {
        return updateJob(jobName, status -> {
            String now = now();
            count(status, counts);
            status.setCompletionTime(now);
            status.setConditions(append(status.getConditions(),
                    condition("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods", now),
                    condition("Complete", "CompletionsReached", "Reached expected number of succeeded pods", now)));
            return status;
        });
    }

    private static JobStatus count(JobStatus status, Counts counts) {
        status.setActive(counts.active() == 0 ? null : counts.active());
        status.setReady(counts.ready());
        status.setTerminating(counts.terminating());
        status.setFailed(counts.failed() == 0 ? null : counts.failed());
        status.setSucceeded(counts.succeeded() == 0 ? null : counts.succeeded());
        status.setCompletedIndexes(counts.completedIndexes() == null || counts.completedIndexes().isEmpty() ? null
                : counts.completedIndexes());
        return status;
    }

    /**
     * Writes the pod's status as the kubelet does, whole (a JSON patch adding {@code /status}: no resourceVersion, so
     * no other writer of the pod can make it conflict); a pod deleted meanwhile is not an error.
     */
    void podStatus(Pod pod) {
        String patch = "[{\"op\":\"add\",\"path\":\"/status\",\"value\":" + Serialization.asJson(pod.getStatus())
                + "}]";
        try {
            client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).subresource("status")
                    .patch(PatchContext.of(PatchType.JSON), patch);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }

    /** Read-modify-write of the Job's status, retried on a conflict; null when the Job is gone. */
    private Job updateJob(String jobName, UnaryOperator<JobStatus> change) {
        for (int attempt = 0; ; attempt++) {
            Job job = client.batch().v1().jobs().inNamespace(namespace).withName(jobName).get();
            if (job == null) {
                return null;
            }
            job.setStatus(change.apply(job.getStatus() == null ? new JobStatus() : job.getStatus()));
            try {
                return client.batch().v1().jobs().inNamespace(namespace).resource(job).updateStatus();
            } catch (KubernetesClientException e) {
                if (e.getCode() == 404) {
                    return null;
                }
                if (e.getCode() != 409 || attempt >= 10) {
                    throw e;
                }
            }
        }
    }

    private static List<JobCondition> append(List<JobCondition> existing, JobCondition... added) {
        List<JobCondition> conditions = new ArrayList<>(existing == null ? List.of() : existing);
        conditions.addAll(List.of(added));
        return conditions;
    }

    private static JobCondition condition(String type, String reason, String message, String now) {
        return condition(type, reason, message, now, "True");
    }

    private static JobCondition condition(String type, String reason, String message, String now, String value) {
        return new JobConditionBuilder().withType(type).withStatus(value).withReason(reason).withMessage(message)
                .withLastProbeTime(now).withLastTransitionTime(now).build();
    }

    private static JobCondition condition(JobStatus status, String type) {
        return status.getConditions() == null ? null : status.getConditions().stream()
                .filter(condition -> type.equals(condition.getType())).findFirst().orElse(null);
    }

    /** The condition of that type replaced in place, or appended (the controller's ensureJobConditionStatus). */
    private static void replace(JobStatus status, JobCondition condition) {
        List<JobCondition> conditions = new ArrayList<>(status.getConditions() == null ? List.of()
                : status.getConditions());
        for (int i = 0; i < conditions.size(); i++) {
            if (conditions.get(i).getType().equals(condition.getType())) {
                conditions.set(i, condition);
                status.setConditions(conditions);
                return;
            }
        }
        conditions.add(condition);
        status.setConditions(conditions);
    }
}
