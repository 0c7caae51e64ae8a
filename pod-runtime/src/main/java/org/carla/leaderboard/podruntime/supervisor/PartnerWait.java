package org.carla.leaderboard.podruntime.supervisor;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/** A bounded wait on status files, ended early by a stop request; says in the log what it waits for. */
public final class PartnerWait {

    private final Waiter waiter;
    private final TerminationSignal termination;
    private final Clock clock;
    private final DecisionLog log;

    public PartnerWait(Waiter waiter, TerminationSignal termination, Clock clock, DecisionLog log) {
        this.waiter = waiter;
        this.termination = termination;
        this.clock = clock;
        this.log = log;
    }

    /**
     * Waits until {@code outcome} names something in the present status files, at most {@code timeout}. Empty when the
     * time ran out or a termination signal came.
     */
    public Optional<String> await(String what, Duration timeout, Function<Set<String>, Optional<String>> outcome)
            throws InterruptedException {
        log.decide("waiting at most " + timeout + " for " + what, "the pair ends together");
        Instant deadline = clock.instant().plus(timeout);
        while (true) {
            Optional<String> seen = outcome.apply(waiter.present());
            if (seen.isPresent()) {
                return seen;
            }
            if (termination.received().isPresent()) {
                return Optional.empty();
            }
            Duration left = Duration.between(clock.instant(), deadline);
            if (left.isNegative() || left.isZero()) {
                log.warn("stopped waiting for " + what, "nothing came within " + timeout);
                return Optional.empty();
            }
            waiter.awaitChange(left);
        }
    }
}
