package org.carla.leaderboard.launcher.job;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.domain.event.JobFinished.Outcome;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;

/**
 * How a Job ended, read from its status: {@code Complete} → succeeded, {@code Failed} with Kubernetes' reason
 * ({@code BackoffLimitExceeded}, {@code DeadlineExceeded}, ...) → failed, deleted before either → deleted.
 */
public record JobEnd(Outcome outcome, String reason, Instant startedAt, Instant finishedAt) {

    public static final String DELETED_REASON = "Deleted";

    /** The end of a finished Job; empty while it runs (or waits for admission). */
    public static Optional<JobEnd> of(Job job) {
        Optional<JobCondition> complete = condition(job, "Complete");
        if (complete.isPresent()) {
            Instant finished = instant(job.getStatus().getCompletionTime());
            return Optional.of(new JobEnd(Outcome.SUCCEEDED, complete.get().getReason(), startedAt(job),
                    finished != null ? finished : instant(complete.get().getLastTransitionTime())));
        }
        return condition(job, "Failed").map(failed -> new JobEnd(Outcome.FAILED,
                failed.getReason() == null ? "Failed" : failed.getReason(), startedAt(job),
                instant(failed.getLastTransitionTime())));
    }

    /** The end of a Job that is being deleted, or was, before it finished. */
    public static JobEnd deleted(Job job, Instant observedAt) {
        Instant deletion = job.getMetadata() == null ? null : instant(job.getMetadata().getDeletionTimestamp());
        return new JobEnd(Outcome.DELETED, DELETED_REASON, startedAt(job), deletion != null ? deletion : observedAt);
    }

    public static boolean finished(Job job) {
        return condition(job, "Complete").isPresent() || condition(job, "Failed").isPresent();
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

    private static Instant startedAt(Job job) {
        return job.getStatus() == null ? null : instant(job.getStatus().getStartTime());
    }

    private static Instant instant(String timestamp) {
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
