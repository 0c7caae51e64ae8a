package org.carla.leaderboard.ingest.config;

import java.time.Duration;

import org.carla.leaderboard.messaging.ConsumerOptions;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How ingest-service consumes {@code submissions}: {@code ingest.consumer.*}. */
@ConfigMapping(prefix = "ingest")
public interface IngestConfig {

    Consumer consumer();

    interface Consumer {
        /** Messages handled at once. */
        @WithDefault("10")
        int maxInFlight();

        /** Long-polling wait of one receive (SQS allows at most 20 s). */
        @WithDefault("20s")
        Duration waitTime();

        /** A received message stays invisible this long; extended every half of it while it is handled. */
        @WithDefault("30s")
        Duration visibilityTimeout();

        /** Receives after which a message failing for a passing reason (EvalAI down) is dead-lettered. */
        @WithDefault("5")
        int maxReceives();

        /** First back-off before a failed message is tried again; doubles per receive. */
        @WithDefault("2s")
        Duration retryBackoff();

        @WithDefault("5m")
        Duration maxRetryBackoff();

        default ConsumerOptions options() {
            return new ConsumerOptions(maxInFlight(), waitTime(), visibilityTimeout(), maxReceives(), retryBackoff(),
                    maxRetryBackoff());
        }
    }
}
