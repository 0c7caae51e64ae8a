package org.carla.leaderboard.console.client;

/** EvalAI did not answer, or answered 5xx, 408 or 429: nothing was changed there. */
public class EvalAiUnavailableException extends RuntimeException {

    public EvalAiUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
