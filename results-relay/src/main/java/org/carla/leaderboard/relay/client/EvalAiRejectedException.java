package org.carla.leaderboard.relay.client;

/**
 * EvalAI rejected the request as it is (a 4xx other than 401, 403, 408, 429): sending it again will not help, so the
 * message is dead-lettered ({@link org.carla.leaderboard.domain.evalai.EvalAiAnswer#REJECTED}).
 */
public final class EvalAiRejectedException extends RuntimeException {

    private final int status;

    public EvalAiRejectedException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
