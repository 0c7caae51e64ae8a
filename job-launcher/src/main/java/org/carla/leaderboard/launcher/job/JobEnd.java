package org.carla.leaderboard.launcher.job;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.Outcome;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;

/**
 * How a Job ended, read from its status: {@code Complete} → succeeded, {@code Failed} with Kubernetes' reason
 * ({@code BackoffLimitExceeded}, {@code DeadlineExceeded}, ...) → failed, deleted before either → deleted, with the
 * reason the launcher deleted it for ({@link JobMetadata#DELETION_REASON}) or {@value #DELETED_REASON}.
 */
public record JobEnd(Outcome outcome, String reason, Instant finishedAt) {

    /** Deleted by someone other than the launcher (an operator, the TTL controller). */
    public static final String DELETED_REASON = "Deleted";
    /** The run was cancelled on EvalAI ({@code cancel_requested_run}). */
    public static final String CANCELLED = "Cancelled";
    /** The record's current run is a later one: this run can never be the one reported. */
    public static final String SUPERSEDED = "Superseded";
    /** The record of this run is final already (FINISHED, FAILED or CANCELLED). */
    public static final String RECORD_TERMINAL = "RecordTerminal";
    /** The pod waited for GPU capacity longer than {@code launcher.longest-capacity-wait}. */
    public static final String CAPACITY_WAIT_EXCEEDED = JobFinished.CAPACITY_WAIT_EXCEEDED;
    /** A container of its pod could not pull its image for longer than {@code launcher.image-pull-grace}. */
    public static final String IMAGE_PULL_FAILED = JobFinished.IMAGE_PULL_FAILED;
    /** A run of several pods: the ledger was settled while some index never ran ({@link IndexedRun}). */
    public static final String ROUTES_DONE_BEFORE_PODS_RAN = JobFinished.ROUTES_DONE_BEFORE_PODS_RAN;

    /** The end of a finished Job; empty while it runs (or waits for admission). */
    public static Optional<JobEnd> of(Job job) {
        Optional<JobCondition> complete = condition(job, "Complete");
        if (complete.isPresent()) {
            Instant finished = instant(job.getStatus().getCompletionTime());
            return Optional.of(new JobEnd(Outcome.SUCCEEDED, complete.get().getReason(),
                    finished != null ? finished : instant(complete.get().getLastTransitionTime())));
        }
        return condition(job, "Failed").map(failed -> new JobEnd(Outcome.FAILED,
                failed.getReason() == null ? "Failed" : failed.getReason(), instant(failed.getLastTransitionTime())));
    }

    /** The end of a Job that is being deleted, or was, before it finished. */
    public static JobEnd deleted(Job job, Instant observedAt) {
        Instant deletion = job.getMetadata() == null ? null : instant(job.getMetadata().getDeletionTimestamp());
        return new JobEnd(Outcome.DELETED, JobMetadata.deletionReason(job).orElse(DELETED_REASON),
                deletion != null ? deletion : observedAt);
    }

    public static boolean finished(Job job) {
        return condition(job, "Complete").isPresent() || condition(job, "Failed").isPresent();
    }

    /** Finished, or being deleted: its end is to be reported. */
    public static boolean ending(Job job) {
        return finished(job) || (job.getMetadata() != null && job.getMetadata().getDeletionTimestamp() != null);
    }

    /** When the Job ended or its deletion was asked; empty while it runs. */
    public static Optional<Instant> endedAt(Job job) {
        Optional<JobEnd> end = of(job);
        if (end.isPresent()) {
            return Optional.ofNullable(end.get().finishedAt());
        }
        return Optional.ofNullable(job.getMetadata() == null ? null : instant(job.getMetadata().getDeletionTimestamp()));
    }

    private static Optional<JobCondition> condition(Job job, String type) {
        if (job.getStatus() == null) {
            return Optional.empty();
        }
        List<JobCondition> conditions = job.getStatus().getConditions();
        if (conditions == null) {
            return Optional.empty();
        }
        return conditions.stream().filter(c -> type.equals(c.getType()) && "True".equals(c.getStatus())).findFirst();
    }

    static Instant instant(String timestamp) {
        if (timestamp == null || timestamp.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(timestamp);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
