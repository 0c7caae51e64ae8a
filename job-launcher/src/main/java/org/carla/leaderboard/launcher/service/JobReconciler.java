package org.carla.leaderboard.launcher.service;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.launcher.job.IndexedRun;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.carla.leaderboard.launcher.job.PodStart;
import org.carla.leaderboard.launcher.job.RunDeadline;
import org.carla.leaderboard.launcher.record.RunRecord;
import org.carla.leaderboard.launcher.record.SubmissionRecords;
import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.quarkus.scheduler.Scheduled;

/**
 * Every {@code launcher.reconcile.interval}, each of the launcher's Jobs is compared with its submission's record and
 * its pod, and mended: a Job whose end was never reported is reported ({@link UnreportedJobs} counts them), a running
 * pod whose start was never announced is announced, and a Job that must not go on is deleted with its reason — its end
 * is then reported as usual ({@code job-finished}, {@code DELETED}, that reason). A Job is deleted when its run was
 * cancelled on EvalAI and its pod has not started (at once) or has not stopped by itself within
 * {@code launcher.reconcile.cancel-grace}; when the record's current run is a later one; when the record of its run is
 * final; when its pod waited for capacity longer than {@code launcher.longest-capacity-wait}; and when a container of
 * its pod could not pull its image for {@code launcher.image-pull-grace} ({@link PodEvidence}); and when a run of
 * several pods settled its route ledger while some of its pods never ran ({@link IndexedRun}).
 */
@ApplicationScoped
public class JobReconciler {

    private static final Logger LOG = Logger.getLogger(JobReconciler.class);

    private final KubernetesClient kubernetes;
    private final JobWatcher watcher;
    private final PodEvidence evidence;
    private final SubmissionRecords records;
    private final UnreportedJobs unreported;
    private final LauncherMetrics metrics;
    private final LauncherConfig config;
    private int lastStuck;

    JobReconciler(KubernetesClient kubernetes, JobWatcher watcher, PodEvidence evidence, SubmissionRecords records,
            UnreportedJobs unreported, LauncherMetrics metrics, LauncherConfig config) {
        this.kubernetes = kubernetes;
        this.watcher = watcher;
        this.evidence = evidence;
        this.records = records;
        this.unreported = unreported;
        this.metrics = metrics;
        this.config = config;
    }

    @Scheduled(identity = "reconcile-jobs", every = "${launcher.reconcile.interval}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void reconcile() {
        if (!watcher.watching()) {
            return; // Not listed yet or the API is away: the cache would lie.
        }
        Instant now = Instant.now();
        var jobs = watcher.jobs();
        int stuck = unreported.count(jobs, now);
        if (stuck != lastStuck) {
            LOG.warnf("%d Jobs ended without their end reported (were %d); each is reported again at every pass", stuck,
                    lastStuck);
            lastStuck = stuck;
        }
        int failures = 0;
        String lastFailure = null;
        for (Job job : jobs) {
            try {
                reconcile(job, now);
            } catch (RuntimeException e) {
                failures++;
                lastFailure = job.getMetadata().getName() + ": " + e.getMessage();
            }
        }
        if (failures > 0) {
            LOG.warnf("reconcile: %d Jobs could not be looked at, again in %s (last: %s)", failures,
                    config.reconcile().interval(), lastFailure);
        }
    }

    private void reconcile(Job job, Instant now) {
        String name = job.getMetadata().getName();
        if (JobEnd.ending(job) || JobMetadata.finishedReported(job)) {
            watcher.settle(job);
            return;
        }
        Optional<Instant> podStart = JobMetadata.startReported(job)
                .or(() -> PodStart.first(watcher.podsOf(name)));
        if (podStart.isPresent() && JobMetadata.startReported(job).isEmpty()) {
            watcher.announce(name);
        }
        Optional<SubmissionIdentity> submission = JobMetadata.submission(job);
        Optional<Integer> run = JobMetadata.run(job);
        if (submission.isPresent() && run.isPresent()) {
            Optional<RunRecord> record = records.read(submission.get());
            if (record.isPresent() && reconcile(job, record.get(), run.get(), podStart.isPresent(), now)) {
                return;
            }
        }
        if (podStart.isPresent()) {
            var pods = new java.util.ArrayList<>(evidence.pods(name));
            pods.addAll(watcher.podsOf(name));
            var unneeded = IndexedRun.routesDoneBeforePodsRan(job, pods);
            if (unneeded.isPresent()) {
                delete(job, JobEnd.ROUTES_DONE_BEFORE_PODS_RAN, unneeded.get());
                return;
            }
        }
        Instant jobStart = RunDeadline.countedFrom(job);
        if (podStart.isEmpty() && jobStart != null
                && jobStart.plus(config.longestCapacityWait()).isBefore(now)) {
            delete(job, JobEnd.CAPACITY_WAIT_EXCEEDED, "its pod waited for capacity since " + jobStart + ", longer than "
                    + config.longestCapacityWait());
            return;
        }
        if (podStart.isEmpty()) {
            evidence.pullFailures(name).stream().filter(pull -> pull.since().plus(config.imagePullGrace()).isBefore(now))
                    .findFirst().ifPresent(pull -> delete(job, JobEnd.IMAGE_PULL_FAILED, "container "
                            + pull.container() + " could not pull " + pull.image() + " since " + pull.since() + ": "
                            + pull.message()));
        }
    }

    /** The rules that rest on the record; true when the Job was dealt with. */
    private boolean reconcile(Job job, RunRecord record, int run, boolean started, Instant now) {
        if (record.run() > run) {
            delete(job, JobEnd.SUPERSEDED, "the record's current run is " + record.run());
            return true;
        }
        if (record.run() == run && record.terminal()) {
            delete(job, JobEnd.RECORD_TERMINAL, "the record is final (" + record.status().orElseThrow() + ")");
            return true;
        }
        if (!record.cancelRequested(run)) {
            return false;
        }
        if (!started) {
            delete(job, JobEnd.CANCELLED, "the run was cancelled before its pod started");
            return true;
        }
        Optional<Instant> seen = JobMetadata.cancelSeen(job);
        Duration grace = config.reconcile().cancelGrace();
        if (seen.isEmpty()) {
            annotate(job, Map.of(JobMetadata.CANCEL_SEEN, now.toString()));
            LOG.infof("Job %s: run %d cancelled while its pod runs; the pod has %s to stop by itself",
                    job.getMetadata().getName(), run, grace);
        } else if (seen.get().plus(grace).isBefore(now)) {
            delete(job, JobEnd.CANCELLED, "the run was cancelled at " + seen.get() + " and its pod did not stop within "
                    + grace);
        }
        return true;
    }

    /** Notes the reason on the Job, then deletes it; the finalizer keeps it until its end was reported. */
    private void delete(Job job, String reason, String why) {
        String name = job.getMetadata().getName();
        annotate(job, Map.of(JobMetadata.DELETION_REASON, reason));
        kubernetes.batch().v1().jobs().inNamespace(config.namespace()).withName(name)
                .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        metrics.jobDeleted(reason);
        LOG.infof("Job %s deleted (%s): %s", name, reason, why);
    }

    private void annotate(Job job, Map<String, String> annotations) {
        kubernetes.batch().v1().jobs().inNamespace(config.namespace()).withName(job.getMetadata().getName())
                .patch(PatchContext.of(PatchType.JSON_MERGE),
                        EventCodec.write(Map.of("metadata", Map.of("annotations", annotations))));
    }
}
