package org.carla.leaderboard.podruntime.logcopy;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * When a piece of work must be over, read at each request: never, a fixed instant, or some time after a stop request
 * (the 20 s between SIGTERM and SIGKILL), which may come while the work runs.
 */
final class Deadline {

    static final Deadline NONE = new Deadline(() -> Long.MAX_VALUE);

    /** {@link System#nanoTime()} at the deadline; {@code Long.MAX_VALUE} for none (yet). */
    private final LongSupplier end;

    private Deadline(LongSupplier end) {
        this.end = end;
    }

    static Deadline in(Duration duration) {
        long at = System.nanoTime() + duration.toNanos();
        return new Deadline(() -> at);
    }

    /** {@code after} the stop request of {@code watch}, whenever it comes. */
    static Deadline afterStop(StatusWatch watch, Duration after) {
        return new Deadline(() -> watch.stopRequested() ? watch.stoppedAt() + after.toNanos() : Long.MAX_VALUE);
    }

    boolean passed() {
        long at = end.getAsLong();
        return at != Long.MAX_VALUE && System.nanoTime() - at >= 0;
    }

    /** {@code normal}, or less when the deadline is nearer (at least 1 ms: a request needs a positive timeout). */
    Duration cap(Duration normal) {
        long at = end.getAsLong();
        if (at == Long.MAX_VALUE) {
            return normal;
        }
        Duration left = Duration.ofNanos(Math.max(at - System.nanoTime(), 1_000_000));
        return left.compareTo(normal) < 0 ? left : normal;
    }
}
