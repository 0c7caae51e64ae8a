package org.carla.leaderboard.domain.record;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.carla.leaderboard.domain.metrics.LiveGauge;
import org.carla.leaderboard.domain.record.StuckRules.Rule;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * A mending service's share of the stuck-submission metrics: the gauge {@code leaderboard_stuck_submissions{rule}} of
 * each rule it mends (how many submissions its last check found stuck) and the counter
 * {@code leaderboard_stuck_mends_total{rule,mend}}. The names and tags are {@link StuckRules}'; the alarms in
 * {@code deploy/aws} watch the gauge.
 */
public final class StuckMetrics {

    private final MeterRegistry registry;
    private final Map<Rule, AtomicInteger> stuck = new EnumMap<>(Rule.class);

    public StuckMetrics(MeterRegistry registry, Rule... rules) {
        this.registry = registry;
        for (Rule rule : rules) {
            var count = new AtomicInteger();
            stuck.put(rule, count);
            LiveGauge.register(registry, StuckRules.GAUGE, Tags.of(StuckRules.RULE_TAG, rule.label()),
                    "Submissions stuck at the last check, by rule (" + rule.label() + ": " + rule.description() + ")",
                    count, AtomicInteger::get);
        }
    }

    /** What the last check of {@code rule} found. */
    public void found(Rule rule, int count) {
        AtomicInteger gauge = stuck.get(rule);
        if (gauge == null) {
            throw new IllegalArgumentException(rule.label() + " is not a rule of this service");
        }
        gauge.set(count);
    }

    public int found(Rule rule) {
        return stuck.get(rule).get();
    }

    /** One mend done: {@code mend} says which (e.g. {@code launch-published}, {@code reported}, {@code failed}). */
    public void mended(Rule rule, String mend) {
        Counter.builder(StuckRules.MENDS).tag(StuckRules.RULE_TAG, rule.label()).tag(StuckRules.MEND_TAG, mend)
                .description("Stuck submissions mended, by rule and mend").register(registry).increment();
    }
}
