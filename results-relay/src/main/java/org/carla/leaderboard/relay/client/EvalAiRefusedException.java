package org.carla.leaderboard.relay.client;

/**
 * EvalAI refused our host token (401, 403): ours to fix, not the message's fault, so it is not retried in the client and
 * the message waits on its queue ({@link org.carla.leaderboard.domain.evalai.EvalAiAnswer#REFUSED}).
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
