package org.carla.leaderboard.localstack.evalai;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What the stand-in's EvalAI API is told to suffer: the next N calls answered with a 5xx, every call answered with a
 * 5xx until some instant, every call throttled (429 with {@code Retry-After}) until some instant, every call left
 * unanswered until some instant, and added latency on every call. Host-side controls and stored files are never
 * affected. Refused connections are the server's business ({@link EvalAiStandIn#refuseFor}).
 */
final class Faults {

    /** How one call fails: its status, and the {@code Retry-After} of a 429. */
    record Failure(int status, Duration retryAfter) {
    }

    private int failNext;
    private int failNextStatus;
    /** Calls of one method whose path holds this, which alone "fail next N" counts (null: every call). */
    private String failNextMethod;
    private String failNextPathPart;
    private Instant failUntil = Instant.MIN;
    private int failUntilStatus;
    private Instant throttleUntil = Instant.MIN;
    private Duration retryAfter = Duration.ZERO;
    private Instant hangUntil = Instant.MIN;
    private Duration latency = Duration.ZERO;

    synchronized void failNext(int calls, int status) {
        failNext(calls, status, null, null);
    }

    synchronized void failNext(int calls, int status, String method, String pathPart) {
        requireServerError(status);
        failNext = calls;
        failNextStatus = status;
        failNextMethod = method;
        failNextPathPart = pathPart;
    }

    synchronized void failFor(Duration duration, int status) {
        requireServerError(status);
        failUntil = Instant.now().plus(duration);
        failUntilStatus = status;
    }

    synchronized void throttleFor(Duration duration, Duration retryAfterHeader) {
        if (retryAfterHeader.isNegative()) {
            throw new IllegalArgumentException("Retry-After must not be negative");
        }
        throttleUntil = Instant.now().plus(duration);
        retryAfter = retryAfterHeader;
    }

    synchronized void hangFor(Duration duration) {
        hangUntil = Instant.now().plus(duration);
        notifyAll();
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
        throttleUntil = Instant.MIN;
        hangUntil = Instant.MIN;
        latency = Duration.ZERO;
        notifyAll();
    }

    synchronized Duration latency() {
        return latency;
    }

    /** Whether a call arriving now gets no answer. */
    synchronized boolean hanging() {
        return Instant.now().isBefore(hangUntil);
    }

    /** Holds a hung call until the hang ends (or is cleared or shortened). */
    synchronized void awaitHangEnd() throws InterruptedException {
        for (Instant now = Instant.now(); now.isBefore(hangUntil); now = Instant.now()) {
            wait(Math.max(1, Duration.between(now, hangUntil).toMillis()));
        }
    }

    /** How to fail this call, if a fault applies; counts the call against "fail next N" when it is one it names. */
    synchronized Optional<Failure> nextFailure(String method, String path) {
        if (failNext > 0 && (failNextMethod == null
                || failNextMethod.equals(method) && path.contains(failNextPathPart))) {
            failNext--;
            return Optional.of(new Failure(failNextStatus, Duration.ZERO));
        }
        Instant now = Instant.now();
        if (now.isBefore(failUntil)) {
            return Optional.of(new Failure(failUntilStatus, Duration.ZERO));
        }
        if (now.isBefore(throttleUntil)) {
            return Optional.of(new Failure(429, retryAfter));
        }
        return Optional.empty();
    }

    private static void requireServerError(int status) {
        if (status < 500 || status > 599) {
            throw new IllegalArgumentException("injected failures are 5xx statuses (429: throttleFor), not " + status);
        }
    }
}
