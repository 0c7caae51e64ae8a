package org.carla.leaderboard.domain.evalai;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
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
    private final Deque<Instant> sent = new ArrayDeque<>();
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
        while (!sent.isEmpty() && !sent.peekFirst().isAfter(now.minus(per))) {
            sent.pollFirst();
        }
        Instant at = pausedUntil.isAfter(now) ? pausedUntil : now;
        if (sent.size() >= calls) {
            // The window from the call `calls` back must have passed: the oldest of the last `calls` calls leaves it.
            Instant free = sent.stream().skip(sent.size() - calls).findFirst().orElseThrow().plus(per);
            at = free.isAfter(at) ? free : at;
        }
        if (Duration.between(now, at).compareTo(maxWait) > 0) {
            return Optional.empty();
        }
        sent.addLast(at);
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
     * Waits for the first moment one more call fits, at most {@code maxWait}.
     *
     * @throws EvalAiBudgetSpentException when it would wait longer
     */
    public void acquire(Duration maxWait) {
        Instant at = reserve(maxWait).orElseThrow(() -> new EvalAiBudgetSpentException("this service's "
                + calls + " EvalAI calls per " + per + " are spent for longer than " + maxWait));
        long millis = Duration.between(clock.instant(), at).toMillis();
        if (millis > 0) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EvalAiBudgetSpentException("interrupted while waiting for an EvalAI call's turn");
            }
        }
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
