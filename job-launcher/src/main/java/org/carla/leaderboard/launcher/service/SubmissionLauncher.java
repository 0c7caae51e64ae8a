package org.carla.leaderboard.launcher.service;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.Outcome;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.launcher.client.SubmissionEvents;
import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.carla.leaderboard.launcher.job.SubmissionJob;
import org.carla.leaderboard.launcher.record.RunRecord;
import org.carla.leaderboard.launcher.record.SubmissionRecords;
import org.carla.leaderboard.messaging.MessageHandler;
import org.carla.leaderboard.messaging.ReceivedMessage;
import org.carla.leaderboard.messaging.RejectedMessageException;
import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.runtime.Startup;

/**
 * Turns one launch request into its run's Job, once per run however often and late the request arrives: the run is
 * claimed in the submission's record first ({@link SubmissionRecords#claim}), and a request of a run that is not the
 * record's current one, whose Job has ended, or whose record is final is refused (logged, counted, deleted). A
 * repeated request of the claimed run creates the Job if it is missing (a crash between the claim and the creation);
 * the Job's name is a function of the submission and the run, so otherwise it meets the Job already made (409).
 * {@code job-started} is not published here: the run starts when its pod runs ({@link RunStarts}).
 */
@Startup // a configuration error (missing resources of a role) fails the start, not the first submission
@ApplicationScoped
public class SubmissionLauncher implements MessageHandler {

    private static final Logger LOG = Logger.getLogger(SubmissionLauncher.class);
    /** Claims that may meet a record changed by someone else before the request is tried again later. */
    private static final int CLAIM_ATTEMPTS = 3;

    private final KubernetesClient kubernetes;
    private final SubmissionJob jobs;
    private final SubmissionEvents events;
    private final SubmissionRecords records;
    private final LauncherMetrics metrics;
    private final String namespace;

    SubmissionLauncher(KubernetesClient kubernetes, LauncherConfig config, SubmissionEvents events,
            SubmissionRecords records, LauncherMetrics metrics) {
        this.kubernetes = kubernetes;
        this.jobs = new SubmissionJob(config);
        this.events = events;
        this.records = records;
        this.metrics = metrics;
        this.namespace = config.namespace();
    }

    @Override
    public void handle(ReceivedMessage message) {
        LaunchRequest request = EventCodec.parseLaunchRequest(message.body());
        Job job = jobs.build(request);
        for (int attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
            Optional<RunRecord> record = read(request);
            RunRecord.Verdict verdict = RunRecord.verdict(record, request.run());
            switch (verdict.launch()) {
                case REFUSED -> {
                    refuse(request, verdict);
                    return;
                }
                case CANCELLED -> {
                    endCancelledBeforeStart(request, job);
                    return;
                }
                case CLAIMED -> {
                    create(request, job);
                    return;
                }
                case CLAIM -> {
                    if (records.claim(request.submission(), request.run(), name(job), Instant.now())) {
                        LOG.infof("submission %s run %d: claimed for Job %s", id(request), request.run(), name(job));
                        create(request, job);
                        return;
                    }
                }
            }
        }
        // Transient: the request comes back after the consumer's back-off and is decided on the record as it is then.
        throw new IllegalStateException("submission " + id(request) + " run " + request.run()
                + ": its record changed " + CLAIM_ATTEMPTS + " times while the run was claimed; trying again later");
    }

    private Optional<RunRecord> read(LaunchRequest request) {
        try {
            return records.read(request.submission());
        } catch (SubmissionRecords.UnknownLeaderboardException e) {
            throw new RejectedMessageException("unknown-leaderboard",
                    "submission " + id(request) + ": " + e.getMessage(), e);
        }
    }

    private void refuse(LaunchRequest request, RunRecord.Verdict verdict) {
        metrics.requestRefused(verdict.refusal());
        LOG.warnf("submission %s run %d: launch request refused (%s: %s); nothing created", id(request),
                request.run(), verdict.refusal(), verdict.explanation());
    }

    private void create(LaunchRequest request, Job job) {
        try {
            kubernetes.batch().v1().jobs().inNamespace(namespace).resource(job).create();
            metrics.jobCreated(request.requestedAt(), Instant.now());
            LOG.infof("submission %s run %d: created Job %s", id(request), request.run(), name(job));
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                alreadyCreated(request, job);
            } else if (e.getCode() == 400 || e.getCode() == 422) {
                // The API server refuses this Job as specified: trying again cannot help.
                throw new RejectedMessageException("job-invalid", "submission " + id(request)
                        + ": the API server refused Job " + name(job) + ": " + e.getMessage(), e);
            } else {
                // Unreachable, 5xx, throttled, forbidden: a passing state of the cluster, never the request's fault.
                throw e;
            }
        }
    }

    /** A 409: the Job of this name exists; it must be this run's, since names differ by submission and run. */
    private void alreadyCreated(LaunchRequest request, Job job) {
        String name = name(job);
        Job existing = kubernetes.batch().v1().jobs().inNamespace(namespace).withName(name).get();
        if (existing == null) {
            throw new IllegalStateException("Job " + name + " was reported to exist but is gone; trying again");
        }
        var labels = existing.getMetadata().getLabels();
        String owner = labels == null ? null : labels.get(JobMetadata.SUBMISSION_ID);
        String submissionLabel = job.getMetadata().getLabels().get(JobMetadata.SUBMISSION_ID);
        Optional<Integer> run = JobMetadata.run(existing);
        if (!submissionLabel.equals(owner) || run.isEmpty() || run.get() != request.run()) {
            throw new RejectedMessageException("job-name-taken", "submission " + id(request) + " run "
                    + request.run() + ": Job " + name + " exists but belongs to submission " + owner + " run "
                    + run.map(String::valueOf).orElse("?"));
        }
        metrics.requestRepeated();
        LOG.infof("submission %s run %d: Job %s already exists, the request was repeated; nothing created",
                id(request), request.run(), name);
    }

    /**
     * A run cancelled on EvalAI before its Job was made ends without one: its end is published as a Job's would be
     * ({@code DELETED}, reason {@code Cancelled}, the name its Job would have had, no start), then noted in the record.
     * If the Job was made after all (a claim before the cancel), the reconcile deletes it and reports that.
     */
    private void endCancelledBeforeStart(LaunchRequest request, Job job) {
        if (kubernetes.batch().v1().jobs().inNamespace(namespace).withName(name(job)).get() != null) {
            alreadyCreated(request, job);
            return;
        }
        Instant now = Instant.now();
        int pairs = JobMetadata.workerPairs(job);
        events.publish(JobFinished.of(request.submission(), request.run(), name(job), Outcome.DELETED,
                JobEnd.CANCELLED, pairs, null, now, List.of(), now));
        records.recordJobEnded(request.submission(), request.run());
        metrics.jobFinished(Outcome.DELETED, JobEnd.CANCELLED);
        LOG.infof("submission %s run %d: cancelled before its Job was made; job-finished (DELETED, %s) published, "
                + "no Job created", id(request), request.run(), JobEnd.CANCELLED);
    }

    private static String name(Job job) {
        return job.getMetadata().getName();
    }

    private static String id(LaunchRequest request) {
        return request.submission().submissionId();
    }
}
