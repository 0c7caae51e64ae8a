package org.carla.leaderboard.domain.evalai;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How many calls each service may make to EvalAI per {@link #per()} ({@code evalai.budget.*}): their shares of
 * EvalAI's throttle of the one host token they call with ({@link EvalAiThrottle}: 60 a minute), so that together they
 * are never throttled. The load they are sized for, a deadline day: 30 submissions an hour with a burst of 20 in its
 * last minutes, 20 runs at once over 2 challenges, a route's news every few minutes per run, an operator or two. Then
 * results-relay needs about 25 a minute at most (a list or two per challenge, one update per run with news, the
 * starts, finals and their confirmations), ingest-service one read per announced submission, ops-console a few per
 * operator action; what a burst asks beyond its share waits for the next permits. Together 54 of the 60: a margin for
 * the clocks of EvalAI and ours not counting the same minute.
 */
@ConfigMapping(prefix = "evalai.budget")
public interface EvalAiBudgetConfig {

    /** EvalAI's throttle period as counted here: its minute (shorter only where the EvalAI stand-in's is). */
    @WithDefault("PT1M")
    Duration per();

    @WithDefault("12")
    int ingestService();

    @WithDefault("36")
    int resultsRelay();

    @WithDefault("6")
    int opsConsole();

    /** The calls of every service together per period. */
    default int total() {
        return ingestService() + resultsRelay() + opsConsole();
    }
}
