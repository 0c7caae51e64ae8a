package org.carla.leaderboard.localstack.evalai;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * EvalAI's throttle of each user, as Django REST framework's {@code SimpleRateThrottle} counts it: per user, the times
 * of the requests it let through in the last period, newest first; a request finding {@code requests} of them is
 * refused (and not counted), and told to wait the rest of the oldest one's period spread over the requests then free,
 * rounded up to whole seconds ({@code Throttled.wait}, sent as {@code Retry-After}).
 */
final class Throttle {

    private final int requests;
    private final Duration period;
    private final Clock clock;
    private final Map<String, Deque<Instant>> history = new HashMap<>();

    Throttle(int requests, Duration period, Clock clock) {
        this.requests = requests;
        this.period = period;
        this.clock = clock;
    }

    /** Lets a request of {@code user} through (counted), or says how many seconds it should wait. */
    synchronized Optional<Long> refuse(String user) {
        Instant now = clock.instant();
        Deque<Instant> times = history.computeIfAbsent(user, key -> new ArrayDeque<>());
        while (!times.isEmpty() && !times.peekLast().isAfter(now.minus(period))) {
            times.pollLast();
        }
        if (times.size() < requests) {
            times.addFirst(now);
            return Optional.empty();
        }
        double remaining = (period.toNanos() - Duration.between(times.peekLast(), now).toNanos()) / 1e9;
        return Optional.of((long) Math.ceil(remaining / (requests - times.size() + 1)));
    }
}
