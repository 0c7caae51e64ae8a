package org.carla.leaderboard.ingest.config;

/**
 * EvalAI's host token ({@code evalai.token}, from the Secret {@code evalai-token} in production). A mapping rather
 * than a lookup at call time so a missing token stops the service at start instead of sending every message to the
 * dead-letter queue with a 401.
 */
@io.smallrye.config.ConfigMapping(prefix = "evalai")
public interface EvalAiConfig {

    /** Never log it. */
    String token();
}
