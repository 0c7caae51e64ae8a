package org.carla.leaderboard.ingest.config;

import org.carla.leaderboard.messaging.ConsumerConfig;

import io.smallrye.config.ConfigMapping;

/** How ingest-service consumes {@code submissions}: {@code ingest.consumer.*}, messaging's group and defaults. */
@ConfigMapping(prefix = "ingest")
public interface IngestConfig {

    ConsumerConfig consumer();
}
