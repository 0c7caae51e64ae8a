package org.carla.leaderboard.launcher.job;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.pod.JobLabels;

import com.fasterxml.jackson.core.JsonProcessingException;

import io.fabric8.kubernetes.api.model.batch.v1.Job;

/**
 * The labels, annotations and finalizer the launcher puts on a submission's Job, and reading the submission back from
 * them: the Job itself is the launcher's only state.
 */
public final class JobMetadata {

    // The labels others select by are the domain's (JobLabels); the rest of the Job's metadata is the launcher's own.
    public static final String MANAGED_BY = JobLabels.MANAGED_BY;
    public static final String LAUNCHER = JobLabels.LAUNCHER;
    public static final String SUBMISSION_ID = JobLabels.SUBMISSION_ID;
    public static final String TEAM_ID = JobLabels.TEAM_ID;
    public static final String LEADERBOARD = JobLabels.LEADERBOARD;
    public static final String TRACK = JobLabels.TRACK;
    /** The run of the submission the Job runs (label and pod label): 1, 2, ... */
    public static final String RUN = JobLabels.RUN;
    /** Pod template label the submissions namespace's NetworkPolicy selects: without it a pod has no network. */
    public static final String WORKLOAD = "leaderboard.carla.org/workload";
    public static final String WORKLOAD_SUBMISSION = "submission";
    public static final String KUEUE_QUEUE = "kueue.x-k8s.io/queue-name";
    /** The label the Job controller puts on a Job's pods: the Job's name. */
    public static final String POD_JOB_NAME = JobLabels.JOB_NAME;

    /** The whole {@link SubmissionIdentity} as JSON: the raw team name lives here only. */
    public static final String SUBMISSION = "leaderboard.carla.org/submission";
    public static final String WORKER_PAIRS = "leaderboard.carla.org/worker-pairs";
    public static final String REQUESTED_AT = "leaderboard.carla.org/requested-at";
    /** The track's deadline in seconds, counted from the pod's start ({@link RunDeadline}). */
    public static final String RUN_DEADLINE = "leaderboard.carla.org/deadline-seconds";
    /**
     * Written once {@code job-started} was published, with the pod's start time (ISO-8601): the start is announced
     * once per run, also across restarts.
     */
    public static final String STARTED_REPORTED = "leaderboard.carla.org/started-reported";
    /** When the launcher first saw the run's cancel on the record (ISO-8601): the grace of a running pod counts from it. */
    public static final String CANCEL_SEEN = "leaderboard.carla.org/cancel-seen-at";
    /** Why the launcher deleted the Job ({@code Cancelled}, {@code Superseded}, ...): the reason job-finished carries. */
    public static final String DELETION_REASON = "leaderboard.carla.org/deletion-reason";
    /** Written once the Job's end was published, before the Job is deleted: a restart then only deletes it. */
    public static final String FINISHED_REPORTED = "leaderboard.carla.org/finished-reported";
    /** Keeps a Job deleted by anyone (TTL, an operator) until its end was published. */
    public static final String REPORT_FINALIZER = "leaderboard.carla.org/report-outcome";
    public static final String SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict";
    /** The EKS pod identity webhook injects no AWS credentials into the containers listed here. */
    public static final String SKIP_AWS_CONTAINERS = "eks.amazonaws.com/skip-containers";

    private JobMetadata() {
    }

    public static String identityJson(SubmissionIdentity submission) {
        return EventCodec.write(submission);
    }

    /** The submission a Job runs, empty when the annotation is missing or was edited into something unreadable. */
    public static Optional<SubmissionIdentity> submission(Job job) {
        String json = annotations(job).get(SUBMISSION);
        if (json == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(EventCodec.mapper().readValue(json, SubmissionIdentity.class));
        } catch (JsonProcessingException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The run the Job runs; empty when the label is missing or not a run number (edited by hand). */
    public static Optional<Integer> run(Job job) {
        var labels = job.getMetadata() == null ? null : job.getMetadata().getLabels();
        String value = labels == null ? null : labels.get(RUN);
        try {
            int run = value == null ? 0 : Integer.parseInt(value);
            return run >= 1 ? Optional.of(run) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    public static int workerPairs(Job job) {
        try {
            return Math.max(1, Integer.parseInt(annotations(job).getOrDefault(WORKER_PAIRS, "1")));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    public static boolean finishedReported(Job job) {
        return annotations(job).containsKey(FINISHED_REPORTED);
    }

    /** When the run's pod started, as announced in {@code job-started}; empty until it was. */
    public static Optional<Instant> startReported(Job job) {
        return instant(annotations(job).get(STARTED_REPORTED));
    }

    /** When the launcher first saw the run cancelled; empty until it did. */
    public static Optional<Instant> cancelSeen(Job job) {
        return instant(annotations(job).get(CANCEL_SEEN));
    }

    /** The reason the launcher deleted the Job for; empty when it did not (or not yet). */
    public static Optional<String> deletionReason(Job job) {
        return Optional.ofNullable(annotations(job).get(DELETION_REASON));
    }

    /** The track's deadline, in seconds from the pod's start; empty when the annotation is missing or edited. */
    public static Optional<Long> runDeadline(Job job) {
        try {
            String value = annotations(job).get(RUN_DEADLINE);
            return value == null ? Optional.empty() : Optional.of(Long.parseLong(value)).filter(seconds -> seconds > 0);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The JSON-pointer path of an annotation, for a JSON patch ({@code /} and {@code ~} escaped). */
    public static String annotationPath(String annotation) {
        return "/metadata/annotations/" + annotation.replace("~", "~0").replace("/", "~1");
    }

    private static Optional<Instant> instant(String value) {
        try {
            return value == null ? Optional.empty() : Optional.of(Instant.parse(value));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    static Map<String, String> annotations(Job job) {
        var annotations = job.getMetadata() == null ? null : job.getMetadata().getAnnotations();
        return annotations == null ? Map.of() : annotations;
    }
}
