package org.carla.leaderboard.domain.status;

import java.util.Locale;
import java.util.Optional;

/**
 * A submission's status in our records (DynamoDB {@code submission_status}): SUBMITTED (its run waits for its Job),
 * PENDING (the run's Job exists, its pod waits for GPU capacity or admission), RUNNING (the pod runs), then FINISHED,
 * FAILED or CANCELLED, which are terminal: nothing moves a run out of them. A resume starts a new run at SUBMITTED.
 */
public enum SubmissionStatus {
    SUBMITTED,
    PENDING,
    RUNNING,
    FINISHED,
    FAILED,
    CANCELLED;

    /** The status a record holds, read case-insensitively; empty for none or one this code does not know. */
    public static Optional<SubmissionStatus> parse(String value) {
        if (value == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(valueOf(value.trim().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    public boolean isTerminal() {
        return this == FINISHED || this == FAILED || this == CANCELLED;
    }

    /** The status as EvalAI's {@code update_submission} takes it: lower case. */
    public String evalAiValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
