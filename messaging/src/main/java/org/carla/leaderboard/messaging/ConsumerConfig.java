package org.carla.leaderboard.messaging;

import java.time.Duration;

import io.smallrye.config.WithDefault;

/**
 * One consumer's settings: a group a service nests in its own {@code @ConfigMapping}, once per queue it consumes
 * ({@code ConsumerConfig consumer();} gives {@code <prefix>.consumer.max-in-flight}, ...). The defaults are the
 * production values; a service overrides what differs in its {@code application.properties}.
 */
public interface ConsumerConfig {

    /** Messages handled at once. */
    @WithDefault("10")
    int maxInFlight();

    /** Long-polling wait of one receive (SQS allows at most 20 s). */
    @WithDefault("PT20S")
    Duration waitTime();

    /** A received message stays invisible this long; extended every half of it while it is handled. */
    @WithDefault("PT30S")
    Duration visibilityTimeout();

    /** How long a message that failed for a passing reason waits after its first receive; doubles per receive. */
    @WithDefault("PT2S")
    Duration retryBackoff();

    /** Cap of that back-off: with the queues' redrive after 200 receives, 15 minutes rides out ~50 h of outage. */
    @WithDefault("PT15M")
    Duration maxRetryBackoff();

    /** How much longer than one long poll the poll loop may go without an iteration before liveness fails. */
    @WithDefault("PT60S")
    Duration livenessMargin();

    default ConsumerOptions options() {
        return new ConsumerOptions(maxInFlight(), waitTime(), visibilityTimeout(), retryBackoff(), maxRetryBackoff(),
                livenessMargin());
    }
}
