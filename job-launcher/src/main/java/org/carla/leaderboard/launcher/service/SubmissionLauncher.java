package org.carla.leaderboard.launcher.service;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.launcher.client.SubmissionEvents;
import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.carla.leaderboard.launcher.job.SubmissionJob;
import org.carla.leaderboard.messaging.MessageHandler;
import org.carla.leaderboard.messaging.ReceivedMessage;
import org.carla.leaderboard.messaging.RejectedMessageException;
import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.quarkus.runtime.Startup;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Turns one launch request into the submission's Job and announces it. The Job's name is derived from the
 * submission alone, so a repeated request meets the Job already created (409) and creates nothing: one Job per
 * submission. {@code job-started} is published again then, since the first attempt may have stopped before it.
 */
@Startup // a configuration error (missing resources of a role) fails the start, not the first submission
@ApplicationScoped
public class SubmissionLauncher implements MessageHandler {

    private static final Logger LOG = Logger.getLogger(SubmissionLauncher.class);

    private final KubernetesClient kubernetes;
    private final SubmissionJob jobs;
    private final SubmissionEvents events;
    private final LauncherMetrics metrics;
    private final String namespace;

    SubmissionLauncher(KubernetesClient kubernetes, LauncherConfig config, SubmissionEvents events,
            LauncherMetrics metrics) {
        this.kubernetes = kubernetes;
        this.jobs = new SubmissionJob(config);
        this.events = events;
        this.metrics = metrics;
        this.namespace = config.namespace();
    }

    @Override
    public void handle(ReceivedMessage message) {
        LaunchRequest request = EventCodec.parseLaunchRequest(message.body());
        Job job = jobs.build(request);
        String name = job.getMetadata().getName();
        String submissionId = request.submission().submissionId();
        try {
            kubernetes.batch().v1().jobs().inNamespace(namespace).resource(job).create();
            metrics.jobCreated(request.requestedAt(), Instant.now());
            LOG.infof("submission %s: created Job %s", submissionId, name);
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                alreadyCreated(name, submissionId);
            } else if (e.getCode() == 400 || e.getCode() == 422) {
                // The API server refuses this Job as specified: trying again cannot help.
                throw new RejectedMessageException("job-invalid",
                        "submission " + submissionId + ": the API server refused Job " + name + ": " + e.getMessage(), e);
            } else {
                throw e;
            }
        }
        // Until job-launcher watches the pod, the Job's creation stands for its start.
        events.publish(JobStarted.of(request.submission(), request.run(), name, Instant.now(), Instant.now()));
    }

    private void alreadyCreated(String name, String submissionId) {
        Job existing = kubernetes.batch().v1().jobs().inNamespace(namespace).withName(name).get();
        String owner = existing == null || existing.getMetadata().getLabels() == null ? null
                : existing.getMetadata().getLabels().get(JobMetadata.SUBMISSION_ID);
        if (existing != null && !submissionId.equals(owner)) {
            throw new RejectedMessageException("job-name-taken", "submission " + submissionId + ": Job " + name
                    + " exists but belongs to submission " + owner);
        }
        metrics.requestRepeated();
        LOG.infof("submission %s: Job %s already exists, the request was repeated; nothing created", submissionId,
                name);
    }
}
