package org.carla.leaderboard.domain.evalai;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One service's calls to EvalAI, at most {@code calls} in any {@code per} (a sliding window, as EvalAI's throttle
 * counts, {@link EvalAiThrottle}), and none before a {@code Retry-After} EvalAI gave has passed. A call reserves the
 * first moment at which it fits and waits for it, so a burst is spread over the next periods rather than refused by
 * EvalAI; a call that would wait longer than it may is not made ({@link EvalAiBudgetSpentException}).
 */
public final class EvalAiBudget {

    private final int calls;
    private final Duration per;
    private final Clock clock;
    /** When the calls of the last period went, or will go (reserved), oldest first. */
    private final List<Instant> sent = new ArrayList<>();
    private Instant pausedUntil = Instant.MIN;

    public EvalAiBudget(int calls, Duration per, Clock clock) {
        if (calls < 1 || per.isNegative() || per.isZero()) {
            throw new IllegalArgumentException("a budget is a positive number of calls per positive period, not "
                    + calls + " per " + per);
        }
        this.calls = calls;
        this.per = per;
        this.clock = clock;
    }

    /**
     * Reserves the first moment from now at which one more call fits, if it is at most {@code maxWait} away; the call
     * is counted at that moment.
     */
    public synchronized Optional<Instant> reserve(Duration maxWait) {
        Instant now = clock.instant();
        while (!sent.isEmpty() && !sent.get(0).isAfter(now.minus(per))) {
            sent.remove(0);
        }
        Instant at = pausedUntil.isAfter(now) ? pausedUntil : now;
        if (sent.size() >= calls) {
            // The window from the call `calls` back must have passed: the oldest of the last `calls` calls leaves it.
            Instant free = sent.get(sent.size() - calls).plus(per);
            at = free.isAfter(at) ? free : at;
        }
        if (Duration.between(now, at).compareTo(maxWait) > 0) {
            return Optional.empty();
        }
        sent.add(at);
        return Optional.of(at);
    }

    /** How many calls could go now without waiting (none while EvalAI's Retry-After runs). */
    public synchronized int available() {
        Instant now = clock.instant();
        if (pausedUntil.isAfter(now)) {
            return 0;
        }
        long inWindow = sent.stream().filter(at -> at.isAfter(now.minus(per))).count();
        return (int) Math.max(0, calls - inWindow);
    }

    /** A call may go now (and is counted), or not at all. */
    public boolean tryAcquire() {
        return reserve(Duration.ZERO).isPresent();
    }

    /**
     * Waits for the first moment one more call fits, at most {@code maxWait}, and returns that turn; the caller tells
     * {@link #finished} when the call is over.
     *
     * @throws EvalAiBudgetSpentException when it would wait longer
     */
    public Instant acquire(Duration maxWait) {
        Instant deadline = clock.instant().plus(maxWait);
        Instant at = reserve(maxWait).orElseThrow(() -> spent(maxWait));
        while (true) {
            long millis = Duration.between(clock.instant(), at).toMillis();
            if (millis > 0) {
                try {
                    Thread.sleep(millis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new EvalAiBudgetSpentException("interrupted while waiting for an EvalAI call's turn");
                }
            }
            Instant turn = confirm(at, deadline);
            if (turn.equals(at)) {
                return at;
            }
            at = turn;
        }
    }

    /**
     * The reserved turn {@code at}, come: itself when the call still fits, else a later turn, reserved instead. A call
     * that was in flight when this turn was given counts from its end ({@link #finished}), and a Retry-After may have
     * come since: either can push the turn.
     *
     * @throws EvalAiBudgetSpentException when the later turn would pass {@code deadline}
     */
    synchronized Instant confirm(Instant at, Instant deadline) {
        long others = sent.stream().filter(e -> e.isAfter(at.minus(per)) && !e.isAfter(at)).count() - 1;
        if (others < calls && !pausedUntil.isAfter(at)) {
            return at;
        }
        sent.remove(at);
        Duration left = Duration.between(clock.instant(), deadline);
        return reserve(left.isNegative() ? Duration.ZERO : left).orElseThrow(() -> spent(left));
    }

    private EvalAiBudgetSpentException spent(Duration maxWait) {
        return new EvalAiBudgetSpentException("this service's " + calls + " EvalAI calls per " + per
                + " are spent for longer than " + maxWait);
    }

    /**
     * The call of {@code turn} is over (answered or not): it counts from now on. EvalAI counts a request when it
     * arrives, somewhere between its turn and its end (a late thread, a slow connection), so a call kept in the window
     * until {@code per} after its end can never put more than this budget in any period of EvalAI's.
     */
    public synchronized void finished(Instant turn) {
        Instant now = clock.instant();
        if (!now.isAfter(turn) || !sent.remove(turn)) {
            return;
        }
        int i = sent.size();
        while (i > 0 && sent.get(i - 1).isAfter(now)) {
            i--;
        }
        sent.add(i, now);
    }

    /** EvalAI answered 429 with {@code Retry-After}: no call before it has passed. */
    public synchronized void pause(Duration retryAfter) {
        Instant until = clock.instant().plus(retryAfter);
        if (until.isAfter(pausedUntil)) {
            pausedUntil = until;
        }
    }

    /** {@code Retry-After} in seconds, as Django REST framework sends it; empty when absent or unreadable. */
    public static Optional<Duration> retryAfter(String header) {
        try {
            return header == null ? Optional.empty()
                    : Optional.of(Duration.ofSeconds(Long.parseLong(header.trim()))).filter(d -> !d.isNegative());
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return calls + " EvalAI calls per " + per;
    }
}
