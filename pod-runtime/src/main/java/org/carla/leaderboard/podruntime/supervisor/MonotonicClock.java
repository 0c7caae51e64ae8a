package org.carla.leaderboard.podruntime.supervisor;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The time of the supervision: the system time once, then moved on by {@link System#nanoTime()}, so a step of the
 * node's clock (NTP) never stretches or cuts a bounded wait or the evaluator's idle time.
 */
public final class MonotonicClock extends Clock {

    private final Instant origin = Instant.now();
    private final long originNanos = System.nanoTime();

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the supervision's clock is UTC only");
    }

    @Override
    public Instant instant() {
        return origin.plusNanos(System.nanoTime() - originNanos);
    }
}
