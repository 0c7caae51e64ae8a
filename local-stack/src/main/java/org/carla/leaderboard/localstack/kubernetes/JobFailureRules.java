package org.carla.leaderboard.localstack.kubernetes;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicy;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyOnExitCodesRequirement;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyOnPodConditionsPattern;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyRule;

/**
 * How the Job controller (kubernetes pkg/controller/job, 1.31) judges a Job's pods, as pure functions of the Job and
 * its pods: {@code pastBackoffLimitOnFailure} (restartPolicy OnFailure: the restart counts of every container, init
 * containers included, of the pods still Pending or Running, summed, reach {@code backoffLimit}; with a limit of 0, any
 * restart), {@code isPodFailed} (phase Failed, or being deleted and not Succeeded unless only failed pods are
 * replaced), {@code matchPodFailurePolicy} (pod_failure_policy.go: the first rule whose exit codes or pod conditions
 * match decides: FailJob with its message, Ignore — not counted against backoffLimit —, or Count) and which pods are
 * replaced when ({@code onlyReplaceFailedPods}: podReplacementPolicy Failed, the default with a podFailurePolicy).
 */
final class JobFailureRules {

    static final int DEFAULT_BACKOFF_LIMIT = 6;

    /** How the pod failure policy judges one failed pod. */
    record Verdict(Optional<String> failJobMessage, boolean countFailed, Optional<String> action) {
        static final Verdict COUNT = new Verdict(Optional.empty(), true, Optional.empty());
    }

    private JobFailureRules() {
    }

    static int backoffLimit(Job job) {
        return Objects.requireNonNullElse(job.getSpec().getBackoffLimit(), DEFAULT_BACKOFF_LIMIT);
    }

    static boolean pastBackoffLimitOnFailure(Job job, List<Pod> pods) {
        if (!"OnFailure".equals(job.getSpec().getTemplate().getSpec().getRestartPolicy())) {
            return false;
        }
        int restarts = 0;
        for (Pod pod : pods) {
            String phase = phase(pod);
            if ("Running".equals(phase) || "Pending".equals(phase)) {
                restarts += restarts(pod.getStatus().getInitContainerStatuses())
                        + restarts(pod.getStatus().getContainerStatuses());
            }
        }
        int limit = backoffLimit(job);
        return limit == 0 ? restarts > 0 : restarts >= limit;
    }

    static boolean isPodFailed(Pod pod, Job job) {
        if ("Failed".equals(phase(pod))) {
            return true;
        }
        if (onlyReplaceFailedPods(job)) {
            return false;
        }
        return pod.getMetadata().getDeletionTimestamp() != null && !"Succeeded".equals(phase(pod));
    }

    /** podReplacementPolicy Failed (the API server's default when a podFailurePolicy is given). */
    static boolean onlyReplaceFailedPods(Job job) {
        return "Failed".equals(job.getSpec().getPodReplacementPolicy()) || job.getSpec().getPodFailurePolicy() != null;
    }

    static Verdict match(PodFailurePolicy policy, Pod pod) {
        if (policy == null || policy.getRules() == null) {
            return Verdict.COUNT;
        }
        List<PodFailurePolicyRule> rules = policy.getRules();
        for (int index = 0; index < rules.size(); index++) {
            PodFailurePolicyRule rule = rules.get(index);
            String action = rule.getAction();
            if (rule.getOnExitCodes() != null) {
                Optional<ContainerStatus> container = matchingContainer(pod, rule.getOnExitCodes());
                if (container.isPresent()) {
                    return verdict(action, "Container " + container.get().getName() + " for pod " + namespacedName(pod)
                            + " failed with exit code " + container.get().getState().getTerminated().getExitCode()
                            + " matching " + action + " rule at index " + index);
                }
            } else if (rule.getOnPodConditions() != null) {
                Optional<PodCondition> condition = matchingCondition(pod, rule.getOnPodConditions());
                if (condition.isPresent()) {
                    return verdict(action, "Pod " + namespacedName(pod) + " has condition " + condition.get().getType()
                            + " matching " + action + " rule at index " + index);
                }
            }
        }
        return Verdict.COUNT;
    }

    private static Verdict verdict(String action, String failJobMessage) {
        return switch (action) {
            case "Ignore" -> new Verdict(Optional.empty(), false, Optional.of(action));
            case "FailJob" -> new Verdict(Optional.of(failJobMessage), true, Optional.of(action));
            default -> new Verdict(Optional.empty(), true, Optional.of(action));
        };
    }

    private static Optional<ContainerStatus> matchingContainer(Pod pod, PodFailurePolicyOnExitCodesRequirement codes) {
        return Optional.ofNullable(pod.getStatus()).flatMap(status -> first(status.getContainerStatuses(), codes)
                .or(() -> first(status.getInitContainerStatuses(), codes)));
    }

    private static Optional<ContainerStatus> first(List<ContainerStatus> statuses,
            PodFailurePolicyOnExitCodesRequirement codes) {
        for (ContainerStatus status : statuses == null ? List.<ContainerStatus>of() : statuses) {
            if (status.getState() == null || status.getState().getTerminated() == null) {
                continue;
            }
            int exitCode = status.getState().getTerminated().getExitCode();
            if ((codes.getContainerName() == null || codes.getContainerName().equals(status.getName()))
                    && exitCode != 0 && operatorMatches(exitCode, codes)) {
                return Optional.of(status);
            }
        }
        return Optional.empty();
    }

    private static boolean operatorMatches(int exitCode, PodFailurePolicyOnExitCodesRequirement codes) {
        boolean listed = codes.getValues() != null && codes.getValues().contains(exitCode);
        return switch (Objects.requireNonNullElse(codes.getOperator(), "")) {
            case "In" -> listed;
            case "NotIn" -> !listed;
            default -> false;
        };
    }

    private static Optional<PodCondition> matchingCondition(Pod pod, List<PodFailurePolicyOnPodConditionsPattern> patterns) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        for (PodCondition condition : pod.getStatus().getConditions()) {
            for (PodFailurePolicyOnPodConditionsPattern pattern : patterns) {
                if (Objects.equals(condition.getType(), pattern.getType())
                        && Objects.equals(condition.getStatus(), pattern.getStatus())) {
                    return Optional.of(condition);
                }
            }
        }
        return Optional.empty();
    }

    private static int restarts(List<ContainerStatus> statuses) {
        return statuses == null ? 0 : statuses.stream().mapToInt(s -> Objects.requireNonNullElse(s.getRestartCount(), 0))
                .sum();
    }

    private static String phase(Pod pod) {
        return pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }

    private static String namespacedName(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }
}
