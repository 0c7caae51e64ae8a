package org.carla.leaderboard.relay.client;

/** EvalAI did not answer, or answered 5xx or 429: worth trying again later. */
public class EvalAiUnavailableException extends RuntimeException {

    public EvalAiUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
