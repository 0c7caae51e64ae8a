package org.carla.leaderboard.console.client;

/** EvalAI refused the request (4xx): its own words are in the message. */
public class EvalAiRefusedException extends RuntimeException {

    private final int status;

    public EvalAiRefusedException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
