package org.carla.leaderboard.ingest.client;

/**
 * EvalAI refused the request for a reason that is ours to fix (401 from a wrong token, 403): asking again at once is
 * pointless, but the submission must not be lost either, so the message waits on the queue with the consumer's
 * back-off until the token or the challenge's hosts are fixed; it is never dead-lettered for this.
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
