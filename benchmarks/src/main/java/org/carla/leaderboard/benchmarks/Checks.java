package org.carla.leaderboard.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a run must have measured before its figures mean anything. A benchmark states, per row, how many samples it
 * took of how many it sent, and each duration or size it derives a figure from; every shortfall is a reason, and a run
 * with a reason exits non-zero and prints it, whatever its table says. A missed target is a figure; a figure taken from
 * nothing is a failure.
 */
final class Checks {

    private final java.time.Clock clock;
    private final Instant started;
    private final List<String> reasons = new ArrayList<>();

    /** For a run starting now. */
    Checks() {
        this(java.time.Clock.systemUTC(), Instant.now());
    }

    Checks(java.time.Clock clock, Instant started) {
        this.clock = clock;
        this.started = started;
    }

    /** Every sample of {@code what} was taken: as many as were sent, each a duration (ms) this run can hold. */
    void samples(String row, String what, Samples samples, int sent) {
        count(row, what, samples.size(), sent);
        if (samples.size() > 0) {
            durationMs(row, what + " (smallest)", samples.min());
            durationMs(row, what + " (largest)", samples.max());
        }
    }

    /** {@code got} of the {@code sent} things the benchmark started reached where it measures them. */
    void count(String row, String what, long got, long sent) {
        if (got < sent) {
            fail(row, what + ": " + got + " of " + sent);
        }
    }

    /**
     * A duration a figure is derived from: a number, not negative, and no longer than this run has lasted (a clock
     * read from an unset value is minus half a century or more).
     */
    void durationMs(String row, String what, double ms) {
        double ranMs = Duration.between(started, clock.instant()).toNanos() / 1e6;
        if (Double.isNaN(ms) || ms < 0 || ms > ranMs) {
            fail(row, what + " is " + Samples.fmt(ms) + " ms, not a duration within this run's "
                    + Samples.fmt(ranMs / 1000) + " s");
        }
    }

    /** A size or amount that must have been read (a resident memory, bytes sent): a positive number. */
    void positive(String row, String what, double value) {
        if (Double.isNaN(value) || value <= 0) {
            fail(row, what + " is " + Samples.fmt(value) + ", nothing measured");
        }
    }

    /** Anything else the figure needs to be true. */
    void that(String row, boolean holds, String reason) {
        if (!holds) {
            fail(row, reason);
        }
    }

    synchronized void fail(String row, String reason) {
        reasons.add(row + ": " + reason);
    }

    synchronized List<String> reasons() {
        return List.copyOf(reasons);
    }
}
