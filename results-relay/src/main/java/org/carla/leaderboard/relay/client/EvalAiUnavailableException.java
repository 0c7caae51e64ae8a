package org.carla.leaderboard.relay.client;

/**
 * EvalAI did not answer, or answered 5xx, 408 or 429: worth trying again later
 * ({@link org.carla.leaderboard.domain.evalai.EvalAiAnswer#UNAVAILABLE}).
 */
public final class EvalAiUnavailableException extends RuntimeException {

    public EvalAiUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
