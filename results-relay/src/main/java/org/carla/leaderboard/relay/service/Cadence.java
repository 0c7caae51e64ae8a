package org.carla.leaderboard.relay.service;

import java.time.Duration;
import java.time.Instant;

/**
 * When EvalAI is next asked about a run: once every {@code every} (60 s) of its life, from its submission on EvalAI
 * (which counts as its first ask) to its final status confirmed. The outbox ticks every sixtieth of {@code every}
 * (never less than a second: Quarkus's scheduler runs nothing more often) and a run is due half a tick early, so on
 * that tick it is asked about every {@code every}, and never more than {@code every} plus half a tick after the last
 * time. The index of the runs not over is read again on the same cadence.
 */
record Cadence(Duration every) {

    private static final Duration SMALLEST_TICK = Duration.ofSeconds(1);

    Cadence {
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("relay.cancel-check.every must be positive, not " + every);
        }
    }

    /** How often the outbox looks at what is due. */
    Duration tick() {
        Duration tick = every.dividedBy(60);
        return tick.compareTo(SMALLEST_TICK) < 0 ? SMALLEST_TICK : tick;
    }

    /**
     * The ask a run never asked about counts as: its submission (now, if that is later or unknown), half a tick on, so
     * that its first ask comes at the first tick a whole interval after the submission.
     */
    Instant firstAsk(Instant submitted, Instant now) {
        return (submitted == null || submitted.isAfter(now) ? now : submitted).plus(tick().dividedBy(2));
    }

    /** Whether something last done at {@code last} (an ask, the index's reading) is due again at {@code now}. */
    boolean due(Instant last, Instant now) {
        return !last.isAfter(now.minus(every).plus(tick().dividedBy(2)));
    }
}
