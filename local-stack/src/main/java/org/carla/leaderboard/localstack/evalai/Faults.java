package org.carla.leaderboard.localstack.evalai;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalInt;

/**
 * What the stand-in's EvalAI API is told to suffer: the next N calls answered with a 5xx, every call answered with a
 * 5xx until some instant, and added latency on every call. Host-side controls and stored files are never affected.
 */
final class Faults {

    private int failNext;
    private int failNextStatus;
    private Instant failUntil = Instant.MIN;
    private int failUntilStatus;
    private Duration latency = Duration.ZERO;

    synchronized void failNext(int calls, int status) {
        requireServerError(status);
        failNext = calls;
        failNextStatus = status;
    }

    synchronized void failFor(Duration duration, int status) {
        requireServerError(status);
        failUntil = Instant.now().plus(duration);
        failUntilStatus = status;
    }

    synchronized void latency(Duration value) {
        if (value.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative");
        }
        latency = value;
    }

    synchronized void clear() {
        failNext = 0;
        failUntil = Instant.MIN;
        latency = Duration.ZERO;
    }

    synchronized Duration latency() {
        return latency;
    }

    /** The status to fail this call with, if a fault applies; counts the call against "fail next N". */
    synchronized OptionalInt nextFailure() {
        if (failNext > 0) {
            failNext--;
            return OptionalInt.of(failNextStatus);
        }
        if (Instant.now().isBefore(failUntil)) {
            return OptionalInt.of(failUntilStatus);
        }
        return OptionalInt.empty();
    }

    private static void requireServerError(int status) {
        if (status < 500 || status > 599) {
            throw new IllegalArgumentException("injected faults are 5xx statuses, not " + status);
        }
    }
}
