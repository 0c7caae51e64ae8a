package org.carla.leaderboard.podruntime.supervisor;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/** A bounded wait on status files, ended early by a stop request; says in the log what it waits for. */
public final class PartnerWait {

    private final Waiter waiter;
    private final TerminationSignal termination;
    private final DecisionLog log;

    public PartnerWait(Waiter waiter, TerminationSignal termination, DecisionLog log) {
        this.waiter = waiter;
        this.termination = termination;
        this.log = log;
    }

    /**
     * Waits until {@code outcome} names something in the present status files, at most {@code timeout}. Empty when the
     * time ran out or a termination signal came.
     */
    public Optional<String> await(String what, Duration timeout, Function<Set<String>, Optional<String>> outcome)
            throws InterruptedException {
        log.decide("waiting at most " + timeout + " for " + what, "the pair ends together");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<String> seen = outcome.apply(waiter.present());
            if (seen.isPresent()) {
                return seen;
            }
            if (termination.received().isPresent()) {
                return Optional.empty();
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                log.warn("stopped waiting for " + what, "nothing came within " + timeout);
                return Optional.empty();
            }
            waiter.awaitChange(Duration.ofNanos(left));
        }
    }
}
