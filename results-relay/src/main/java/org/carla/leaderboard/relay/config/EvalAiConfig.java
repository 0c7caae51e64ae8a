package org.carla.leaderboard.relay.config;

import io.smallrye.config.ConfigMapping;

/**
 * EvalAI's host token ({@code evalai.token}, from the Secret {@code evalai-token} in production), read as ingest-service
 * reads it: a mapping, so a missing token stops the service at start instead of failing every call with a 401.
 */
@ConfigMapping(prefix = "evalai")
public interface EvalAiConfig {

    /** Never log it. */
    String token();
}
