package org.carla.leaderboard.relay.store;

import org.carla.leaderboard.domain.status.SubmissionStatus;

/**
 * What the relay reads back of a submission's record.
 *
 * @param status    {@code submission_status}; {@code null} when the record has none (or none yet)
 * @param finalSent whether the terminal status has reached EvalAI ({@code evalai_final_sent})
 */
public record SubmissionRecord(SubmissionStatus status, boolean finalSent) {

    public boolean isTerminal() {
        return status != null && status.isTerminal();
    }
}
