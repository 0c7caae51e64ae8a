package org.carla.leaderboard.domain.evalai;

import java.time.Duration;

/**
 * EvalAI's throttle of one user, whatever the endpoint: Django REST framework's {@code UserRateThrottle} at EvalAI's
 * {@code DEFAULT_THROTTLE_RATES["user"] = "60/minute"} (EvalAI {@code settings/common.py}), counted over a sliding
 * minute of the requests it let through; beyond it, 429 with {@code Retry-After}. Every service calls EvalAI with the
 * one host token, so their budgets ({@link EvalAiBudgetConfig}) share these requests.
 */
public final class EvalAiThrottle {

    /** Requests a user may make in one {@link #PERIOD}. */
    public static final int REQUESTS = 60;
    public static final Duration PERIOD = Duration.ofMinutes(1);

    private EvalAiThrottle() {
    }
}
