package org.carla.leaderboard.ingest.client;

/**
 * EvalAI could not answer now (5xx, 408, 429, connection refused, timed out): worth asking again shortly
 * ({@link org.carla.leaderboard.domain.evalai.EvalAiAnswer#UNAVAILABLE}).
 */
public final class EvalAiUnavailableException extends RuntimeException {

    public EvalAiUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
