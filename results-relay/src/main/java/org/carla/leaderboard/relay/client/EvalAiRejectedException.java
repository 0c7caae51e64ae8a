package org.carla.leaderboard.relay.client;

/** EvalAI refused the request (4xx other than 408/429): sending it again will not help. */
public class EvalAiRejectedException extends RuntimeException {

    private final int status;

    public EvalAiRejectedException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
