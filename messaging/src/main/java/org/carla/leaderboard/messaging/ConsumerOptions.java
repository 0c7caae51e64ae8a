package org.carla.leaderboard.messaging;

import java.time.Duration;

/**
 * How a {@link QueueConsumer} polls.
 *
 * @param maxInFlight       messages handled at once (and the size of the handler pool)
 * @param waitTime          long-polling wait of one receive (at most 20 s)
 * @param visibilityTimeout how long a received message stays invisible; extended every half of it while handled
 * @param maxReceives       receives after which a message failing with a passing error is dead-lettered by us
 *                          (the queue's redrive policy, maxReceiveCount 5, is the safety net)
 * @param retryBackoff      first back-off before a failed message is visible again; doubles per receive, capped
 *                          by {@code maxRetryBackoff}
 * @param maxRetryBackoff   cap of the retry back-off
 */
public record ConsumerOptions(int maxInFlight, Duration waitTime, Duration visibilityTimeout, int maxReceives,
        Duration retryBackoff, Duration maxRetryBackoff) {

    public ConsumerOptions {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1");
        }
        if (waitTime.isNegative() || waitTime.toSeconds() > 20) {
            throw new IllegalArgumentException("SQS long polling waits 0 to 20 s");
        }
        if (visibilityTimeout.toSeconds() < 2) {
            throw new IllegalArgumentException("visibility timeout must be at least 2 s");
        }
        if (maxReceives < 1) {
            throw new IllegalArgumentException("maxReceives must be at least 1");
        }
    }

    public static ConsumerOptions defaults() {
        return new ConsumerOptions(10, Duration.ofSeconds(20), Duration.ofSeconds(30), 5, Duration.ofSeconds(2),
                Duration.ofMinutes(5));
    }

    public ConsumerOptions withMaxInFlight(int value) {
        return new ConsumerOptions(value, waitTime, visibilityTimeout, maxReceives, retryBackoff, maxRetryBackoff);
    }

    public ConsumerOptions withWaitTime(Duration value) {
        return new ConsumerOptions(maxInFlight, value, visibilityTimeout, maxReceives, retryBackoff, maxRetryBackoff);
    }

    public ConsumerOptions withVisibilityTimeout(Duration value) {
        return new ConsumerOptions(maxInFlight, waitTime, value, maxReceives, retryBackoff, maxRetryBackoff);
    }

    public ConsumerOptions withRetryBackoff(Duration first, Duration max) {
        return new ConsumerOptions(maxInFlight, waitTime, visibilityTimeout, maxReceives, first, max);
    }

    /** The back-off before the {@code receiveCount}-th failed attempt is tried again. */
    Duration backoffAfter(int receiveCount) {
        long millis = retryBackoff.toMillis() << Math.min(Math.max(receiveCount - 1, 0), 20);
        return Duration.ofMillis(Math.min(millis, maxRetryBackoff.toMillis()));
    }
}
