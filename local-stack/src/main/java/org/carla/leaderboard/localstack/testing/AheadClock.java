package org.carla.leaderboard.localstack.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A service's clock in its Quarkus tests, in place of the system's: the system's time plus how far the tests moved it
 * on. Time passes as it does, and a test jumps it over a policy's minutes. One offset per JVM, so the events and
 * records a test makes ({@link #now()}) carry the service's time, as other services' clocks would agree with it. A
 * module's tests subclass it as their {@code @Alternative} bean.
 */
public class AheadClock extends Clock {

    private static final AtomicReference<Duration> AHEAD = new AtomicReference<>(Duration.ZERO);

    /** The service's time now (the system's where no test moved it). */
    public static Instant now() {
        return Instant.now().plus(AHEAD.get());
    }

    @Override
    public Instant instant() {
        return now();
    }

    /** The time jumps {@code duration} on; it never goes back. */
    public void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("a test clock never goes back: " + duration);
        }
        AHEAD.accumulateAndGet(duration, Duration::plus);
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
