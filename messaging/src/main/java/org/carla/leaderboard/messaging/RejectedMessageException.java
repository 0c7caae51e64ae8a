package org.carla.leaderboard.messaging;

/**
 * A well-formed message that can never be handled (an unknown phase, a submission EvalAI does not know): it goes to
 * the dead-letter queue at once. {@link #reason()} is a short tag for metrics ({@code unknown-phase}); the message
 * says what is wrong for the log.
 */
public final class RejectedMessageException extends RuntimeException {

    private final String reason;

    public RejectedMessageException(String reason, String message) {
        super(message);
        this.reason = reason;
    }

    public RejectedMessageException(String reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public String reason() {
        return reason;
    }
}
