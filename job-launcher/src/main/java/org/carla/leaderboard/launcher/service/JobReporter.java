package org.carla.leaderboard.launcher.service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.launcher.client.SubmissionEvents;
import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.carla.leaderboard.launcher.job.PodImages;
import org.carla.leaderboard.launcher.job.PodSpans;
import org.carla.leaderboard.launcher.job.PodStart;
import org.carla.leaderboard.launcher.record.SubmissionRecords;
import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * Reports the end of one Job and removes it, in an order that survives a restart at any point: publish
 * {@code job-finished} (preceded by {@code job-started} when the run's start was never announced), note the run's end
 * in its record ({@code job_ended_run}, so a launch request of that run delivered later is refused), then mark the
 * Job reported (annotation) and release its finalizer, then delete it. A restart before the mark publishes again (a
 * duplicate, tolerated downstream); after it, only the deletion is left to do.
 */
@ApplicationScoped
public class JobReporter {

    private static final Logger LOG = Logger.getLogger(JobReporter.class);

    private final KubernetesClient kubernetes;
    private final SubmissionEvents events;
    private final SubmissionRecords records;
    private final PodEvidence evidence;
    private final LauncherMetrics metrics;
    private final String namespace;
    /**
     * UIDs of the Jobs reported by this process, so a deletion event carrying a state older than our mark is not
     * reported twice. Only an optimisation: the durable mark is the annotation.
     */
    private final Set<String> reported = Collections.newSetFromMap(new LinkedHashMap<String, Boolean>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > 10_000;
        }
    });

    /** UIDs of the Jobs found unreportable: logged and counted once each (the reconcile keeps finding them). */
    private final Set<String> unreportable = ConcurrentHashMap.newKeySet();

    JobReporter(KubernetesClient kubernetes, SubmissionEvents events, SubmissionRecords records, PodEvidence evidence,
            LauncherMetrics metrics, LauncherConfig config) {
        this.kubernetes = kubernetes;
        this.events = events;
        this.records = records;
        this.evidence = evidence;
        this.metrics = metrics;
        this.namespace = config.namespace();
    }

    /** A Job that finished or is being deleted: report it unless already done, then let it go. */
    public void settle(String name) {
        Job job = kubernetes.batch().v1().jobs().inNamespace(namespace).withName(name).get();
        if (job == null) {
            return; // Gone: its deletion event is handled by vanished().
        }
        if (!JobMetadata.finishedReported(job)) {
            if (!publish(job)) {
                return;
            }
        }
        release(job);
        if (job.getMetadata().getDeletionTimestamp() == null) {
            kubernetes.batch().v1().jobs().inNamespace(namespace).withName(name)
                    .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
            LOG.infof("Job %s deleted", name);
        }
    }

    /** A Job that disappeared without our mark (its finalizer removed by someone else): report what is known. */
    public void vanished(Job job) {
        if (!JobMetadata.finishedReported(job) && !wasReported(job)) {
            publish(job);
        }
    }

    private boolean publish(Job job) {
        String name = job.getMetadata().getName();
        Optional<SubmissionIdentity> submission = JobMetadata.submission(job);
        Optional<Integer> run = JobMetadata.run(job);
        if (submission.isEmpty() || run.isEmpty()) {
            if (unreportable.add(job.getMetadata().getUid())) {
                metrics.jobUnreportable();
                LOG.errorf("Job %s has no readable %s annotation or %s label: its end cannot be reported; left in "
                        + "place for an operator", name, JobMetadata.SUBMISSION, JobMetadata.RUN);
            }
            return false;
        }
        Instant now = Instant.now();
        List<Pod> pods = knownPods(name);
        Optional<Instant> announced = JobMetadata.startReported(job);
        Optional<Pod> started = announced.isPresent() ? Optional.empty() : PodStart.firstStarted(pods);
        Optional<Instant> podStart = announced.or(() -> started.flatMap(PodStart::of));
        // What every pod of the run ran, those the record may lack included (each is written once).
        PodStart.inStartOrder(pods).forEach(pod -> records.recordPodImages(submission.get(),
                PodImages.of(pod, run.get())));
        if (started.isPresent()) {
            // It ran and ended before its start was announced: announce it with its end (the relay takes either order).
            events.publish(JobStarted.of(submission.get(), run.get(), name, podStart.get(), now));
        }
        JobEnd end = JobEnd.of(job).orElseGet(() -> JobEnd.deleted(job, now));
        events.publish(JobFinished.of(submission.get(), run.get(), name, end.outcome(), end.reason(),
                JobMetadata.workerPairs(job), podStart.orElse(null), end.finishedAt(),
                containerOutcomes(pods, evidence.pullFailures(name)), PodSpans.of(pods, evidence.deletionsSeen(name)),
                now));
        synchronized (reported) {
            reported.add(job.getMetadata().getUid());
        }
        metrics.jobFinished(end.outcome(), end.reason());
        LOG.infof("submission %s run %d: Job %s ended, %s (%s); job-finished published",
                submission.get().submissionId(), run.get(), name, end.outcome(), end.reason());
        recordEnded(submission.get(), run.get(), name);
        return true;
    }

    /** Notes the run's end in its record, before the Job goes; a failure here fails the report, retried later. */
    private void recordEnded(SubmissionIdentity submission, int run, String name) {
        try {
            if (!records.recordJobEnded(submission, run)) {
                LOG.infof("submission %s run %d: the record is on another run or noted the end already (Job %s)",
                        submission.submissionId(), run, name);
            }
        } catch (SubmissionRecords.UnknownLeaderboardException e) {
            LOG.errorf("submission %s run %d: the end of Job %s cannot be noted: %s", submission.submissionId(), run,
                    name, e.getMessage());
        }
    }

    private boolean wasReported(Job job) {
        synchronized (reported) {
            return reported.contains(job.getMetadata().getUid());
        }
    }

    /**
     * Marks the Job reported and removes our finalizer in one JSON patch; its {@code test} operation makes the patch
     * fail, rather than remove another controller's finalizer, if the list changed since the Job was read.
     */
    private void release(Job job) {
        List<String> finalizers = job.getMetadata().getFinalizers() == null ? List.of()
                : job.getMetadata().getFinalizers();
        int ours = finalizers.indexOf(JobMetadata.REPORT_FINALIZER);
        var operations = new ArrayList<Map<String, Object>>();
        if (ours >= 0) {
            String path = "/metadata/finalizers/" + ours;
            operations.add(Map.of("op", "test", "path", path, "value", JobMetadata.REPORT_FINALIZER));
            operations.add(Map.of("op", "remove", "path", path));
        }
        if (!JobMetadata.finishedReported(job)) {
            String reportedAt = Instant.now().toString();
            if (job.getMetadata().getAnnotations() == null) {
                operations.add(Map.of("op", "add", "path", "/metadata/annotations",
                        "value", Map.of(JobMetadata.FINISHED_REPORTED, reportedAt)));
            } else {
                operations.add(Map.of("op", "add", "path", JobMetadata.annotationPath(JobMetadata.FINISHED_REPORTED),
                        "value", reportedAt));
            }
        }
        if (!operations.isEmpty()) {
            kubernetes.batch().v1().jobs().inNamespace(namespace).withName(job.getMetadata().getName())
                    .patch(PatchContext.of(PatchType.JSON), EventCodec.write(operations));
        }
    }

    /**
     * The Job's pods as the watch last saw them before their deletion ({@link PodEvidence}: the controller deletes a
     * failed Job's pods before it says Failed), and any the API still has that the watch did not see.
     */
    private List<Pod> knownPods(String name) {
        Map<String, Pod> pods = new LinkedHashMap<>();
        evidence.pods(name).forEach(pod -> pods.put(pod.getMetadata().getName(), pod));
        kubernetes.pods().inNamespace(namespace).withLabel(JobMetadata.POD_JOB_NAME, name).list().getItems()
                .forEach(pod -> pods.putIfAbsent(pod.getMetadata().getName(), pod));
        return List.copyOf(pods.values());
    }

    /**
     * Each container of the Job's latest pod, of each completion index's latest pod in a run of several pods (each
     * outcome naming its index): restarts and how it last ended; a container that could not pull its image says so with
     * the runtime's reason. Empty when no pod was ever seen.
     */
    private static List<ContainerOutcome> containerOutcomes(List<Pod> pods, List<PodEvidence.PullFailure> pulls) {
        Map<Optional<Integer>, Pod> latest = new TreeMap<>(Comparator.comparing((Optional<Integer> i) -> i.orElse(-1)));
        pods.stream().filter(pod -> pod.getStatus() != null)
                .sorted(Comparator.comparing((Pod pod) -> String.valueOf(pod.getMetadata().getCreationTimestamp())))
                .forEach(pod -> latest.put(PodSpans.index(pod), pod));
        var outcomes = new ArrayList<ContainerOutcome>();
        latest.forEach((index, pod) -> {
            Integer podIndex = index.orElse(null);
            statuses(pod.getStatus().getInitContainerStatuses())
                    .forEach(s -> outcomes.add(outcome(s, pulls).inPod(podIndex)));
            statuses(pod.getStatus().getContainerStatuses())
                    .forEach(s -> outcomes.add(outcome(s, pulls).inPod(podIndex)));
        });
        return outcomes;
    }

    private static List<ContainerStatus> statuses(List<ContainerStatus> statuses) {
        return statuses == null ? List.of() : statuses;
    }

    private static ContainerOutcome outcome(ContainerStatus status, List<PodEvidence.PullFailure> pulls) {
        ContainerStateTerminated ended = terminated(status.getState());
        if (ended == null) {
            ended = terminated(status.getLastState());
        }
        int restarts = status.getRestartCount() == null ? 0 : status.getRestartCount();
        var waiting = status.getState() == null ? null : status.getState().getWaiting();
        if (ended == null && waiting != null && ContainerOutcome.PULL_FAILURES.contains(waiting.getReason())) {
            String message = pulls.stream().filter(pull -> pull.container().equals(status.getName()))
                    .map(PodEvidence.PullFailure::message).findFirst().orElse(waiting.getMessage());
            return new ContainerOutcome(status.getName(), restarts, null, waiting.getReason(), null,
                    status.getImage(), message, null);
        }
        return new ContainerOutcome(status.getName(), restarts, ended == null ? null : ended.getExitCode(),
                ended == null ? null : ended.getReason(), ended == null ? null : instant(ended.getFinishedAt()),
                status.getImage(), ended == null ? null : ended.getMessage(), null);
    }

    private static Instant instant(String timestamp) {
        try {
            return timestamp == null ? null : Instant.parse(timestamp);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    private static ContainerStateTerminated terminated(ContainerState state) {
        return state == null ? null : state.getTerminated();
    }
}
