package org.carla.leaderboard.domain.status;

/**
 * A submission's status in our records (DynamoDB {@code submission_status}). FINISHED, FAILED and CANCELLED are
 * terminal: nothing moves a submission out of them.
 */
public enum SubmissionStatus {
    SUBMITTED,
    RUNNING,
    FINISHED,
    FAILED,
    CANCELLED;

    public boolean isTerminal() {
        return this == FINISHED || this == FAILED || this == CANCELLED;
    }

    /** The status as EvalAI's {@code update_submission} takes it: lower case. */
    public String evalAiValue() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
