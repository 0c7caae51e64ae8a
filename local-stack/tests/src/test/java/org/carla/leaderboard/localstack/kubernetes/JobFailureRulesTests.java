package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicy;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyBuilder;

/** The Job controller's judgements as job_controller.go and pod_failure_policy.go make them. */
class JobFailureRulesTests {

    @Test
    void theRestartCountsOfEveryContainerInitContainersIncludedReachTheLimit() {
        Job job = job("OnFailure", 3);
        assertThat(JobFailureRules.pastBackoffLimitOnFailure(job, List.of(pod("Running", List.of(restarts("init", 1)),
                List.of(restarts("simulator-1", 1), restarts("agent-1", 0)))))).isFalse();
        assertThat(JobFailureRules.pastBackoffLimitOnFailure(job, List.of(pod("Running", List.of(restarts("init", 1)),
                List.of(restarts("simulator-1", 1), restarts("agent-1", 1)))))).as("1 + 1 + 1 >= 3").isTrue();
        assertThat(JobFailureRules.pastBackoffLimitOnFailure(job, List.of(pod("Failed", List.of(),
                List.of(restarts("agent-1", 5)))))).as("only pods still Pending or Running count").isFalse();
        assertThat(JobFailureRules.pastBackoffLimitOnFailure(job("Never", 0), List.of(pod("Running", List.of(),
                List.of(restarts("agent-1", 5)))))).as("restartPolicy Never").isFalse();
        assertThat(JobFailureRules.pastBackoffLimitOnFailure(job("OnFailure", 0), List.of(pod("Pending", List.of(),
                List.of(restarts("agent-1", 1)))))).as("a limit of 0: any restart").isTrue();
    }

    @Test
    void aPairCrashIsTwoRestarts() {
        // the track's allowed resumes is 1: backoffLimit 2 × 1 + 1 lets one pair crash restart, not a second
        Job job = job("OnFailure", 3);
        Pod afterOneCrash = pod("Running", List.of(), List.of(restarts("simulator-1", 1), restarts("agent-1", 1)));
        Pod secondCrash = pod("Running", List.of(), List.of(restarts("simulator-1", 2), restarts("agent-1", 1)));
        assertThat(JobFailureRules.pastBackoffLimitOnFailure(job, List.of(afterOneCrash))).isFalse();
        assertThat(JobFailureRules.pastBackoffLimitOnFailure(job, List.of(secondCrash))).isTrue();
    }

    @Test
    void theFirstRuleOfThePodFailurePolicyThatMatchesDecides() {
        PodFailurePolicy policy = new PodFailurePolicyBuilder()
                .addNewRule().withAction("Ignore").addNewOnPodCondition().withType("DisruptionTarget").withStatus("True")
                .endOnPodCondition().endRule()
                .addNewRule().withAction("FailJob").withNewOnExitCodes().withContainerName("agent-1").withOperator("In")
                .withValues(42).endOnExitCodes().endRule()
                .addNewRule().withAction("Count").withNewOnExitCodes().withOperator("NotIn").withValues(0)
                .endOnExitCodes().endRule()
                .build();
        Pod disrupted = pod("Failed", List.of(), List.of(exited("agent-1", 42)));
        disrupted.getStatus().getConditions().add(new io.fabric8.kubernetes.api.model.PodConditionBuilder()
                .withType("DisruptionTarget").withStatus("True").build());
        assertThat(JobFailureRules.match(policy, disrupted).countFailed()).isFalse();

        var failJob = JobFailureRules.match(policy, pod("Failed", List.of(), List.of(exited("agent-1", 42))));
        assertThat(failJob.failJobMessage()).contains("Container agent-1 for pod submissions/p failed with exit code"
                + " 42 matching FailJob rule at index 1");
        var counted = JobFailureRules.match(policy, pod("Failed", List.of(), List.of(exited("simulator-1", 1))));
        assertThat(counted.countFailed()).isTrue();
        assertThat(counted.failJobMessage()).isEmpty();
        assertThat(counted.action()).contains("Count");
    }

    @Test
    void aPodBeingDeletedHasFailedUnlessOnlyFailedPodsAreReplaced() {
        Pod deleting = pod("Running", List.of(), List.of(restarts("agent-1", 0)));
        deleting.getMetadata().setDeletionTimestamp("2026-11-27T10:00:00Z");
        assertThat(JobFailureRules.isPodFailed(deleting, job("OnFailure", 3))).isTrue();
        Job withPolicy = job("Never", 3);
        withPolicy.getSpec().setPodFailurePolicy(new PodFailurePolicyBuilder().addNewRule().withAction("Count")
                .addNewOnPodCondition().withType("DisruptionTarget").withStatus("True").endOnPodCondition().endRule()
                .build());
        assertThat(JobFailureRules.onlyReplaceFailedPods(withPolicy)).isTrue();
        assertThat(JobFailureRules.isPodFailed(deleting, withPolicy)).isFalse();
        assertThat(JobFailureRules.isPodFailed(pod("Failed", List.of(), List.of()), withPolicy)).isTrue();
    }

    private static Job job(String restartPolicy, int backoffLimit) {
        return new JobBuilder().withNewMetadata().withName("j").endMetadata().withNewSpec()
                .withBackoffLimit(backoffLimit).withNewTemplate().withNewSpec().withRestartPolicy(restartPolicy)
                .endSpec().endTemplate().endSpec().build();
    }

    private static Pod pod(String phase, List<ContainerStatus> init, List<ContainerStatus> main) {
        return new PodBuilder().withNewMetadata().withName("p").withNamespace("submissions").endMetadata()
                .withNewStatus().withPhase(phase).withInitContainerStatuses(init).withContainerStatuses(main)
                .withConditions(new java.util.ArrayList<>()).endStatus().build();
    }

    private static ContainerStatus restarts(String name, int count) {
        return new ContainerStatusBuilder().withName(name).withRestartCount(count).withNewState().withNewRunning()
                .endRunning().endState().build();
    }

    private static ContainerStatus exited(String name, int code) {
        return new ContainerStatusBuilder().withName(name).withRestartCount(0).withNewState().withNewTerminated()
                .withExitCode(code).endTerminated().endState().build();
    }
}
