package org.carla.leaderboard.localstack.kubernetes;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.carla.leaderboard.localstack.kubernetes.rbac.ApiStatus.FieldError;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;

/**
 * The API server's validation of a Job created or updated, for the fields the local Job controller acts on
 * (kubernetes pkg/apis/batch/validation/validation.go {@code ValidateJob} and {@code validateJobSpec}, 1.31), in its
 * order: {@code parallelism} and {@code completions} not negative; {@code completionMode} NonIndexed or Indexed; an
 * Indexed Job needs {@code completions} and at most 100000 {@code parallelism} (completions may exceed parallelism,
 * and parallelism completions); a {@code podFailurePolicy} needs {@code restartPolicy: Never}; an Indexed Job's last
 * pod host name {@code <name>-<completions-1>} must be a DNS-1123 label. Of the pod template (core validation.go
 * {@code validateInitContainers}, {@code validateContainers}, 1.33): an init container's {@code restartPolicy} may only
 * be Always (a sidecar), a regular container may have none. Everything else is accepted as stored.
 */
final class JobValidation {

    /** validation.go's maxParallelismForIndexedJob: it caps the length of {@code status.completedIndexes}. */
    static final int MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000;
    private static final Pattern DNS_1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final String NEGATIVE = "must be greater than or equal to 0";

    private JobValidation() {
    }

    /** What the API server would refuse the Job for; empty when it would store it. */
    static List<FieldError> errors(Job job) {
        List<FieldError> errors = new ArrayList<>();
        JobSpec spec = job.getSpec();
        if (spec == null) {
            return errors;
        }
        if (spec.getParallelism() != null && spec.getParallelism() < 0) {
            errors.add(FieldError.invalid("spec.parallelism", spec.getParallelism().toString(), NEGATIVE));
        }
        if (spec.getCompletions() != null && spec.getCompletions() < 0) {
            errors.add(FieldError.invalid("spec.completions", spec.getCompletions().toString(), NEGATIVE));
        }
        String mode = spec.getCompletionMode();
        boolean indexed = "Indexed".equals(mode);
        if (mode != null && !indexed && !"NonIndexed".equals(mode)) {
            errors.add(FieldError.notSupported("spec.completionMode", mode, List.of("NonIndexed", "Indexed")));
        }
        if (indexed) {
            if (spec.getCompletions() == null) {
                errors.add(FieldError.required("spec.completions", "when completion mode is Indexed"));
            }
            if (spec.getParallelism() != null && spec.getParallelism() > MAX_PARALLELISM_FOR_INDEXED_JOB) {
                errors.add(FieldError.invalid("spec.parallelism", spec.getParallelism().toString(),
                        "must be less than or equal to " + MAX_PARALLELISM_FOR_INDEXED_JOB
                                + " when completion mode is Indexed"));
            }
        }
        if (spec.getPodFailurePolicy() != null) {
            String restartPolicy = spec.getTemplate() == null || spec.getTemplate().getSpec() == null ? ""
                    : String.valueOf(spec.getTemplate().getSpec().getRestartPolicy());
            if (!"Never".equals(restartPolicy)) {
                errors.add(FieldError.invalid("spec.template.spec.restartPolicy", "\"" + restartPolicy + "\"",
                        "only \"Never\" is supported when podFailurePolicy is specified"));
            }
        }
        if (spec.getTemplate() != null && spec.getTemplate().getSpec() != null) {
            errors.addAll(containerRestartPolicies(spec.getTemplate().getSpec()));
        }
        String name = job.getMetadata() == null ? null : job.getMetadata().getName();
        if (indexed && name != null && spec.getCompletions() != null && spec.getCompletions() > 0) {
            // The controller gives each pod the host name <name>-<index>: the last must be a DNS label.
            String lastHostname = name + "-" + (spec.getCompletions() - 1);
            if (lastHostname.length() > 63 || !DNS_1123_LABEL.matcher(lastHostname).matches()) {
                errors.add(FieldError.invalid("metadata.name", "\"" + name + "\"",
                        "will not able to create pod with invalid DNS label: " + lastHostname));
            }
        }
        return errors;
    }

    private static List<FieldError> containerRestartPolicies(PodSpec pod) {
        List<FieldError> errors = new ArrayList<>();
        List<Container> init = pod.getInitContainers() == null ? List.of() : pod.getInitContainers();
        for (int index = 0; index < init.size(); index++) {
            String policy = init.get(index).getRestartPolicy();
            if (policy != null && !"Always".equals(policy)) {
                errors.add(FieldError.notSupported("spec.template.spec.initContainers[" + index + "].restartPolicy",
                        policy, List.of("Always")));
            }
        }
        List<Container> containers = pod.getContainers() == null ? List.of() : pod.getContainers();
        for (int index = 0; index < containers.size(); index++) {
            if (containers.get(index).getRestartPolicy() != null) {
                errors.add(FieldError.forbidden("spec.template.spec.containers[" + index + "].restartPolicy",
                        "may not be set for non-init containers"));
            }
        }
        return errors;
    }
}
