package org.carla.leaderboard.launcher.service;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.launcher.client.SubmissionEvents;
import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.carla.leaderboard.launcher.job.PodImages;
import org.carla.leaderboard.launcher.job.PodStart;
import org.carla.leaderboard.launcher.job.RunDeadline;
import org.carla.leaderboard.launcher.record.SubmissionRecords;
import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * Announces that a run started: when its pod runs (not when its Job was made), the images it runs are written to the
 * record ({@link PodImages}: by digest, the kubelet's {@code imageID}), {@code job-started} is published with the pod's
 * start, then one merge patch marks the Job ({@link JobMetadata#STARTED_REPORTED}) and moves its
 * {@code activeDeadlineSeconds} to the wait it had plus the track's deadline ({@link RunDeadline}). A failure before
 * the mark is tried again (the reconciler announces every running Job not marked); a restart between the publication
 * and the mark publishes again (a duplicate the relay ignores); after the mark, never again for this run. A pod that
 * starts later in the run (the replacement of a pod lost with its node) adds its images to the run's
 * ({@link #recordImages}): it may have pulled other bytes under the same tags.
 */
@ApplicationScoped
public class RunStarts {

    private static final Logger LOG = Logger.getLogger(RunStarts.class);

    private final KubernetesClient kubernetes;
    private final SubmissionEvents events;
    private final SubmissionRecords records;
    private final LauncherMetrics metrics;
    private final String namespace;
    /** The pods whose images the record has, as far as this process knows: each is written once. */
    private final Set<String> podsRecorded = ConcurrentHashMap.newKeySet();

    RunStarts(KubernetesClient kubernetes, SubmissionEvents events, SubmissionRecords records, LauncherMetrics metrics,
            LauncherConfig config) {
        this.kubernetes = kubernetes;
        this.events = events;
        this.records = records;
        this.metrics = metrics;
        this.namespace = config.namespace();
    }

    /** The Job's pod may run: announce the run's start unless it was, or the Job is ending (its report does it). */
    public void announce(String jobName) {
        Job job = kubernetes.batch().v1().jobs().inNamespace(namespace).withName(jobName).get();
        if (job == null || JobMetadata.startReported(job).isPresent() || JobEnd.ending(job)) {
            return;
        }
        List<Pod> pods = kubernetes.pods().inNamespace(namespace).withLabel(JobMetadata.POD_JOB_NAME, jobName).list()
                .getItems();
        Optional<Pod> started = PodStart.firstStarted(pods);
        Optional<Instant> podStart = started.flatMap(PodStart::of);
        Optional<SubmissionIdentity> submission = JobMetadata.submission(job);
        Optional<Integer> run = JobMetadata.run(job);
        if (podStart.isEmpty() || submission.isEmpty() || run.isEmpty()) {
            return; // Not running yet; or unreadable, which its end's report will log.
        }
        for (Pod pod : PodStart.inStartOrder(pods)) {
            record(submission.get(), run.get(), pod);
        }
        events.publish(JobStarted.of(submission.get(), run.get(), jobName, podStart.get(), Instant.now()));
        Instant jobStart = RunDeadline.countedFrom(job);
        var annotations = Map.of(JobMetadata.STARTED_REPORTED, podStart.get().toString());
        var patch = new LinkedHashMap<String, Object>();
        patch.put("metadata", Map.of("annotations", annotations));
        Optional<Long> deadline = JobMetadata.runDeadline(job);
        deadline.ifPresent(seconds -> patch.put("spec",
                Map.of("activeDeadlineSeconds", RunDeadline.rebased(jobStart, podStart.get(), seconds))));
        kubernetes.batch().v1().jobs().inNamespace(namespace).withName(jobName)
                .patch(PatchContext.of(PatchType.JSON_MERGE), EventCodec.write(patch));
        Duration waited = jobStart == null ? Duration.ZERO : Duration.between(jobStart, podStart.get());
        metrics.runStarted(waited);
        LOG.infof("submission %s run %d: the pod of Job %s runs since %s (waited %ds for capacity); job-started "
                + "published, deadline %s", submission.get().submissionId(), run.get(), jobName, podStart.get(),
                waited.toSeconds(), deadline.map(s -> s + " s from the pod's start").orElse("unchanged (no "
                        + JobMetadata.RUN_DEADLINE + ")"));
    }

    /** Whether the record has the images of the pod {@code podName} (as far as this process knows). */
    public boolean imagesRecorded(String podName) {
        return podsRecorded.contains(podName);
    }

    /**
     * A pod of a Job whose start was announced has started ({@code job} and {@code pod} as the informers last saw
     * them): its images join the run's in the record.
     */
    public void recordImages(Job job, Pod pod) {
        Optional<SubmissionIdentity> submission = JobMetadata.submission(job);
        Optional<Integer> run = JobMetadata.run(job);
        if (PodStart.of(pod).isEmpty() || submission.isEmpty() || run.isEmpty()) {
            return;
        }
        if (record(submission.get(), run.get(), pod)) {
            LOG.infof("submission %s run %d: pod %s of Job %s runs; its images are added to the run's",
                    submission.get().submissionId(), run.get(), pod.getMetadata().getName(),
                    job.getMetadata().getName());
        }
    }

    /** Forgets a deleted pod. */
    public void forget(String podName) {
        podsRecorded.remove(podName);
    }

    private boolean record(SubmissionIdentity submission, int run, Pod pod) {
        boolean written = records.recordPodImages(submission, PodImages.of(pod, run));
        podsRecorded.add(pod.getMetadata().getName());
        return written;
    }
}
