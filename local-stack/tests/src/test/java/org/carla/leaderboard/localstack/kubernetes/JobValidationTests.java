package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyBuilder;

/** What validation.go's validateJobSpec and ValidateJob refuse of the fields the local Job controller acts on. */
class JobValidationTests {

    @Test
    void anIndexedJobNeedsCompletionsAndAtMost100000Parallelism() {
        assertThat(JobValidation.errors(job("pair", "Indexed", null, 2))).extracting(Object::toString)
                .containsExactly("spec.completions: Required value: when completion mode is Indexed");
        assertThat(JobValidation.errors(job("wide", "Indexed", 200_000, 100_001))).extracting(Object::toString)
                .containsExactly("spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when"
                        + " completion mode is Indexed");
        assertThat(JobValidation.errors(job("wide", "Indexed", 200_000, 100_000))).as("completions are not capped")
                .isEmpty();
        assertThat(JobValidation.errors(job("more", "Indexed", 2, 5))).as("parallelism may exceed completions")
                .isEmpty();
        assertThat(JobValidation.errors(job("plain", null, null, 200_000))).as("NonIndexed: no cap").isEmpty();
    }

    @Test
    void theCompletionModeIsOneOfTwoAndCountsAreNotNegative() {
        assertThat(JobValidation.errors(job("odd", "Sequential", -1, -2))).extracting(Object::toString).containsExactly(
                "spec.parallelism: Invalid value: -2: must be greater than or equal to 0",
                "spec.completions: Invalid value: -1: must be greater than or equal to 0",
                "spec.completionMode: Unsupported value: \"Sequential\": supported values: \"NonIndexed\","
                        + " \"Indexed\"");
        assertThat(JobValidation.errors(job("plain", "NonIndexed", 1, 1))).isEmpty();
    }

    @Test
    void theLastIndexsHostNameMustBeADnsLabel() {
        String name = "a".repeat(61);
        assertThat(JobValidation.errors(job(name, "Indexed", 11, 11))).extracting(Object::toString).containsExactly(
                "metadata.name: Invalid value: \"" + name + "\": will not able to create pod with invalid DNS label: "
                        + name + "-10");
        assertThat(JobValidation.errors(job(name, "Indexed", 10, 10))).as("<name>-9: 63 characters").isEmpty();
        assertThat(JobValidation.errors(job(name, null, 11, 11))).as("NonIndexed: no host names").isEmpty();
        assertThat(JobValidation.errors(job("a.b", "Indexed", 1, 1))).extracting(Object::toString)
                .singleElement().asString().endsWith("invalid DNS label: a.b-0");
    }

    @Test
    void onlyAnInitContainerMayHaveARestartPolicyAndOnlyAlways() {
        Job job = job("pods", null, 1, 1);
        job.getSpec().getTemplate().getSpec().setInitContainers(List.of(
                new ContainerBuilder().withName("sidecar").withRestartPolicy("Always").build(),
                new ContainerBuilder().withName("retried").withRestartPolicy("OnFailure").build()));
        job.getSpec().getTemplate().getSpec().setContainers(List.of(new ContainerBuilder().withName("main").build(),
                new ContainerBuilder().withName("restarting").withRestartPolicy("Always").build()));

        assertThat(JobValidation.errors(job)).extracting(Object::toString).containsExactly(
                "spec.template.spec.initContainers[1].restartPolicy: Unsupported value: \"OnFailure\": supported"
                        + " values: \"Always\"",
                "spec.template.spec.containers[1].restartPolicy: Forbidden: may not be set for non-init containers");
    }

    @Test
    void aPodFailurePolicyNeedsRestartPolicyNeverAfterTheCompletionRules() {
        Job job = job("policy", "Indexed", null, 1);
        job.getSpec().setPodFailurePolicy(new PodFailurePolicyBuilder().addNewRule().withAction("FailJob")
                .withNewOnExitCodes().withOperator("In").withValues(42).endOnExitCodes().endRule().build());
        assertThat(JobValidation.errors(job)).extracting(Object::toString).containsExactly(
                "spec.completions: Required value: when completion mode is Indexed",
                "spec.template.spec.restartPolicy: Invalid value: \"OnFailure\": only \"Never\" is supported when"
                        + " podFailurePolicy is specified");
        job.getSpec().setCompletions(1);
        job.getSpec().getTemplate().getSpec().setRestartPolicy("Never");
        assertThat(JobValidation.errors(job)).isEmpty();
    }

    static Job job(String name, String completionMode, Integer completions, Integer parallelism) {
        return new JobBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withCompletionMode(completionMode).withCompletions(completions).withParallelism(parallelism)
                .withNewTemplate().withNewSpec().withRestartPolicy("OnFailure").addNewContainer().withName("main")
                .withImage("busybox").endContainer().endSpec().endTemplate().endSpec().build();
    }
}
