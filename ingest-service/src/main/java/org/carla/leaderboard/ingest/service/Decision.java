package org.carla.leaderboard.ingest.service;

import java.util.function.BooleanSupplier;

import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.status.EvalAiStatus;

/** What the intake does with an announced submission, from EvalAI's status and the track's gate. */
public enum Decision {
    LAUNCH,
    /** EvalAI shows {@code resuming}: a new launch of the same submission, resuming where it stopped. */
    RESUME,
    CANCELLED,
    NOT_ALLOWED;

    /**
     * @param status    the submission's status on EvalAI
     * @param gated     whether the track is open only to teams that passed its qualifier
     * @param qualified asked only for a gated track that is not cancelled (it costs a DynamoDB read)
     */
    public static Decision of(EvalAiStatus status, boolean gated, BooleanSupplier qualified) {
        // Cancelled first: a cancelled submission is reported as such, whoever submitted it.
        if (status == EvalAiStatus.CANCELLED) {
            return CANCELLED;
        }
        if (gated && !qualified.getAsBoolean()) {
            return NOT_ALLOWED;
        }
        return status == EvalAiStatus.RESUMING ? RESUME : LAUNCH;
    }

    /** The reason of a not-launched event; only for {@link #CANCELLED} and {@link #NOT_ALLOWED}. */
    public NotLaunched.Reason notLaunchedReason() {
        return switch (this) {
            case CANCELLED -> NotLaunched.Reason.CANCELLED;
            case NOT_ALLOWED -> NotLaunched.Reason.NOT_ALLOWED;
            default -> throw new IllegalStateException(this + " is a launch");
        };
    }
}
