package org.carla.leaderboard.launcher.service;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.launcher.job.DisruptionAllowance;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * Allows for a disrupted pod in its Job's {@code backoffLimit} ({@link DisruptionAllowance}): reads the Job, and patches
 * it unless it is ending or allowed for the pod already. A patch whose {@code test} failed (the Job changed since it
 * was read) is tried again on the Job as it is; what still fails is tried again at the pod's next event or resync.
 */
@ApplicationScoped
public class Disruptions {

    private static final Logger LOG = Logger.getLogger(Disruptions.class);
    private static final int ATTEMPTS = 3;

    private final KubernetesClient kubernetes;
    private final String namespace;

    Disruptions(KubernetesClient kubernetes, LauncherConfig config) {
        this.kubernetes = kubernetes;
        this.namespace = config.namespace();
    }

    /** The pod {@code podName} of Job {@code jobName} was disrupted: the Job's limit allows for it once. */
    public void allow(String jobName, String podName) {
        for (int attempt = 1; ; attempt++) {
            Job job = kubernetes.batch().v1().jobs().inNamespace(namespace).withName(jobName).get();
            if (job == null || JobEnd.ending(job)) {
                return;
            }
            Optional<List<Map<String, Object>>> patch = DisruptionAllowance.patch(job, podName);
            if (patch.isEmpty()) {
                return;
            }
            try {
                kubernetes.batch().v1().jobs().inNamespace(namespace).withName(jobName)
                        .patch(PatchContext.of(PatchType.JSON), EventCodec.write(patch.get()));
                LOG.infof("submission %s run %s: pod %s of Job %s was disrupted (its node went, or it was evicted):"
                        + " backoffLimit %d, so the run's crash budget does not pay for it",
                        JobMetadata.submission(job).map(s -> s.submissionId()).orElse("?"),
                        JobMetadata.run(job).map(String::valueOf).orElse("?"), podName, jobName,
                        DisruptionAllowance.limit(job) + 1);
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 422 || attempt == ATTEMPTS) {
                    throw e;
                }
            }
        }
    }
}
