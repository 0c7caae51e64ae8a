package org.carla.leaderboard.ingest.client;

/**
 * EvalAI refused our host token (401, 403): ours to fix, not the message's fault. Asking again at once is pointless, but
 * the submission must not be lost either, so the message goes back to the queue with the consumer's back-off
 * ({@link org.carla.leaderboard.domain.evalai.EvalAiAnswer#REFUSED}).
 */
public final class EvalAiRefusedException extends RuntimeException {

    private final int status;

    public EvalAiRefusedException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
