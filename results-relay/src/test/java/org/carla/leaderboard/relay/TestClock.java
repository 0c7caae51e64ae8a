package org.carla.leaderboard.relay;

import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

/**
 * The relay's clock in its tests, in place of the system's: the system's time plus how far a test moved it on. The
 * relay's cadence then runs as in production (a run asked about once a minute), and a minute of it costs a test a
 * moment: {@link #minutesUntil}.
 */
@Alternative
@Priority(1)
@Singleton
public class TestClock extends Clock {

    /** The relay's interval between two asks about a run (relay.cancel-check.every in production and here). */
    static final Duration MINUTE = Duration.ofSeconds(60);
    /** Real time a test waits for what takes the relay minutes of its clock. */
    static final Duration PATIENCE = Duration.ofSeconds(40);

    /**
     * How far the relay's time is ahead of the system's: one for the test JVM, so that the events and reports the tests
     * make ({@link #now()}) carry the relay's time, as the other services' clocks would agree with it.
     */
    private static final AtomicReference<Duration> AHEAD = new AtomicReference<>(Duration.ZERO);

    /** The relay's time now (the system's where no test moved it, as in the packaged relay's tests). */
    static Instant now() {
        return Instant.now().plus(AHEAD.get());
    }

    @Override
    public Instant instant() {
        return now();
    }

    /** The relay's time jumps {@code duration} on; it never goes back. */
    public void advance(Duration duration) {
        AHEAD.accumulateAndGet(duration, Duration::plus);
    }

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

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
