package org.carla.leaderboard.localstack.kubernetes;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * The Pod object the Job controller would create for a Job, and what the Downward API reads from it. A pod of an
 * Indexed Job carries its completion index as the controller gives it (indexed_job_utils.go and job_controller.go's
 * {@code manageJob}, 1.31): annotation and label {@value #COMPLETION_INDEX}, name generated from
 * {@code <job>-<index>-}, {@code spec.hostname} {@code <job>-<index>}, and in every container and init container that
 * does not set it itself, {@value #COMPLETION_INDEX_ENV} from the label through the Downward API.
 */
final class PodObjects {

    static final String NODE_NAME = "localhost";
    /** The annotation and label with a pod's completion index (batch/v1's JobCompletionIndexAnnotation). */
    static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
    static final String COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX";
    /** No completion index: a pod of a NonIndexed Job. */
    static final int NO_INDEX = -1;
    /** apiserver's names.MaxGeneratedNameLength: a generateName is cut to this before its 5 random characters. */
    private static final int MAX_GENERATED_NAME_LENGTH = 58;
    private static final String SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
    private static final SecureRandom RANDOM = new SecureRandom();

    private PodObjects() {
    }

    /** {@code <job>-<5 random characters>}, as {@code generateName} gives the controller's pods. */
    static String podName(String jobName) {
        return podName(jobName, NO_INDEX);
    }

    /**
     * The name {@code generateName} gives the controller's pod: {@code <job>-} or, with a completion index,
     * {@code <job>-<index>-} (a job name too long for it is cut, the index kept: {@code podGenerateNameWithIndex}),
     * then 5 random characters.
     */
    static String podName(String jobName, int index) {
        String base;
        if (index == NO_INDEX) {
            base = jobName + "-";
        } else {
            String appended = "-" + index + "-";
            base = jobName + appended;
            if (base.length() > MAX_GENERATED_NAME_LENGTH) {
                base = base.substring(0, MAX_GENERATED_NAME_LENGTH - appended.length()) + appended;
            }
        }
        if (base.length() > MAX_GENERATED_NAME_LENGTH) {
            base = base.substring(0, MAX_GENERATED_NAME_LENGTH);
        }
        var suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(SUFFIX_ALPHABET.charAt(RANDOM.nextInt(SUFFIX_ALPHABET.length())));
        }
        return base + suffix;
    }

    /** Whether the Job's {@code spec.completionMode} is Indexed. */
    static boolean indexed(Job job) {
        return "Indexed".equals(job.getSpec().getCompletionMode());
    }

    /** The pod's completion index (its annotation), {@link #NO_INDEX} when it has none or not a number. */
    static int completionIndex(Pod pod) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(COMPLETION_INDEX);
        if (value == null) {
            return NO_INDEX;
        }
        try {
            int index = Integer.parseInt(value);
            return index < 0 ? NO_INDEX : index;
        } catch (NumberFormatException e) {
            return NO_INDEX;
        }
    }

    /**
     * The Job's template as a pod: the controller's labels, owner reference and {@code finalizer} (the Job
     * controller's tracking finalizer, which keeps a deleted pod until the controller counted it), not bound yet.
     */
    static Pod newPod(Job job, String podName, String namespace, String finalizer) {
        return newPod(job, podName, namespace, finalizer, NO_INDEX);
    }

    /** As {@link #newPod(Job, String, String, String)}, for the completion {@code index} of an Indexed Job. */
    static Pod newPod(Job job, String podName, String namespace, String finalizer, int index) {
        String jobName = job.getMetadata().getName();
        String uid = job.getMetadata().getUid();
        var template = job.getSpec().getTemplate();
        Map<String, String> labels = new LinkedHashMap<>();
        if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
            labels.putAll(template.getMetadata().getLabels());
        }
        labels.put("job-name", jobName);
        labels.put("controller-uid", uid);
        labels.put("batch.kubernetes.io/job-name", jobName);
        labels.put("batch.kubernetes.io/controller-uid", uid);
        var metadata = new ObjectMetaBuilder().withName(podName).withNamespace(namespace)
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("batch/v1").withKind("Job")
                        .withName(jobName).withUid(uid).withController(true).withBlockOwnerDeletion(true).build())
                .withFinalizers(finalizer);
        Map<String, String> annotations = new LinkedHashMap<>();
        if (template.getMetadata() != null && template.getMetadata().getAnnotations() != null) {
            annotations.putAll(template.getMetadata().getAnnotations());
        }
        var spec = new PodSpecBuilder(template.getSpec());
        if (index != NO_INDEX) {
            annotations.put(COMPLETION_INDEX, Integer.toString(index));
            labels.put(COMPLETION_INDEX, Integer.toString(index));
            spec.withHostname(jobName + "-" + index)
                    .withInitContainers(withIndexEnv(template.getSpec().getInitContainers()))
                    .withContainers(withIndexEnv(template.getSpec().getContainers()));
        }
        if (!annotations.isEmpty()) {
            metadata.withAnnotations(annotations);
        }
        return new PodBuilder().withMetadata(metadata.withLabels(labels).build()).withSpec(spec.build())
                .withNewStatus().withPhase("Pending").endStatus().build();
    }

    /**
     * The containers, each with {@value #COMPLETION_INDEX_ENV} from the pod's index label (the Downward API, as the
     * controller adds it with PodIndexLabel), unless it has a variable of that name.
     */
    private static List<Container> withIndexEnv(List<Container> containers) {
        List<Container> indexed = new ArrayList<>();
        for (Container container : containers == null ? List.<Container>of() : containers) {
            List<EnvVar> env = container.getEnv() == null ? List.of() : container.getEnv();
            if (env.stream().anyMatch(variable -> COMPLETION_INDEX_ENV.equals(variable.getName()))) {
                indexed.add(container);
                continue;
            }
            indexed.add(new ContainerBuilder(container)
                    .addToEnv(new EnvVarBuilder().withName(COMPLETION_INDEX_ENV).withNewValueFrom().withNewFieldRef()
                            .withFieldPath("metadata.labels['" + COMPLETION_INDEX + "']").endFieldRef().endValueFrom()
                            .build())
                    .build());
        }
        return indexed;
    }

    /** The scheduler's binding: the pod's node (a patch, so nobody else's write to the pod can conflict with it). */
    static void bind(KubernetesClient client, String namespace, String podName) {
        client.pods().inNamespace(namespace).withName(podName).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"nodeName\":\"" + NODE_NAME + "\"}}");
    }

    /** Deletes the pod (one with a finalizer is only marked); one already gone is not an error. */
    static void delete(KubernetesClient client, String namespace, String podName) {
        try {
            client.pods().inNamespace(namespace).withName(podName).delete();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }

    /** Removes the pod's finalizers, so a deleted pod goes; true when it is gone. */
    static boolean releaseFinalizer(KubernetesClient client, String namespace, String podName) {
        try {
            client.pods().inNamespace(namespace).withName(podName).patch(PatchContext.of(PatchType.JSON_MERGE),
                    "{\"metadata\":{\"finalizers\":null}}");
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
        return client.pods().inNamespace(namespace).withName(podName).get() == null;
    }

    /** What a {@code fieldRef} may read (the Downward API's fields that make sense here). */
    static Map<String, String> fields(Pod pod) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("metadata.name", pod.getMetadata().getName());
        fields.put("metadata.namespace", pod.getMetadata().getNamespace());
        fields.put("metadata.uid", Objects.requireNonNullElse(pod.getMetadata().getUid(), ""));
        fields.put("spec.nodeName", NODE_NAME);
        fields.put("spec.serviceAccountName", Objects.requireNonNullElse(pod.getSpec().getServiceAccountName(), "default"));
        fields.put("status.podIP", "127.0.0.1");
        fields.put("status.hostIP", "127.0.0.1");
        pod.getMetadata().getLabels().forEach((key, value) -> fields.put("metadata.labels['" + key + "']", value));
        if (pod.getMetadata().getAnnotations() != null) {
            pod.getMetadata().getAnnotations().forEach((key, value) -> fields.put("metadata.annotations['" + key + "']",
                    value));
        }
        return fields;
    }
}
