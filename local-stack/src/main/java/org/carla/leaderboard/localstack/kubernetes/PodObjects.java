package org.carla.leaderboard.localstack.kubernetes;

import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

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

/** The Pod object the Job controller would create for a Job, and what the Downward API reads from it. */
final class PodObjects {

    static final String NODE_NAME = "localhost";
    private static final String SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
    private static final SecureRandom RANDOM = new SecureRandom();

    private PodObjects() {
    }

    /** {@code <job>-<5 random characters>}, as {@code generateName} gives the controller's pods. */
    static String podName(String jobName) {
        var suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(SUFFIX_ALPHABET.charAt(RANDOM.nextInt(SUFFIX_ALPHABET.length())));
        }
        String prefix = jobName.length() > 57 ? jobName.substring(0, 57) : jobName;
        return prefix + "-" + suffix;
    }

    /**
     * The Job's template as a pod: the controller's labels, owner reference and {@code finalizer} (the Job
     * controller's tracking finalizer, which keeps a deleted pod until the controller counted it), not bound yet.
     */
    static Pod newPod(Job job, String podName, String namespace, String finalizer) {
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
        var metadata = new ObjectMetaBuilder().withName(podName).withNamespace(namespace).withLabels(labels)
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("batch/v1").withKind("Job")
                        .withName(jobName).withUid(uid).withController(true).withBlockOwnerDeletion(true).build())
                .withFinalizers(finalizer);
        if (template.getMetadata() != null && template.getMetadata().getAnnotations() != null) {
            metadata.withAnnotations(template.getMetadata().getAnnotations());
        }
        return new PodBuilder().withMetadata(metadata.build())
                .withSpec(new PodSpecBuilder(template.getSpec()).build())
                .withNewStatus().withPhase("Pending").endStatus().build();
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
        return fields;
    }
}
