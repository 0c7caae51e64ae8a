package org.carla.leaderboard.relay;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Callable;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import org.carla.leaderboard.localstack.testing.AheadClock;

/**
 * The relay's clock in its tests, in place of the system's ({@link AheadClock}). The relay's cadence then runs as in
 * production (a run asked about once a minute), and a minute of it costs a test a moment: {@link #minutesUntil}.
 */
@Alternative
@Priority(1)
@Singleton
public class TestClock extends AheadClock {

    /** The relay's interval between two asks about a run (relay.cancel-check.every in production and here). */
    static final Duration MINUTE = Duration.ofSeconds(60);
    /** Real time a test waits for what takes the relay minutes of its clock. */
    static final Duration PATIENCE = Duration.ofSeconds(40);

    /**
     * Minutes of the relay's time pass, one each time {@code condition} is found not to hold yet, until it holds: the
     * clock stops at the minute in which it came true.
     */
    public void minutesUntil(Callable<Boolean> condition) {
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(600)).until(() -> {
            if (condition.call()) {
                return true;
            }
            advance(MINUTE);
            return false;
        });
    }
}
