package org.carla.leaderboard.domain.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class LiveGaugeTests {

    /**
     * Quarkus's root registry outlives an application in tests (and a bean re-created while one stops): the gauge of
     * the application started next must read that application's object, not the earlier one.
     */
    @Test
    void theLatestRegistrationIsTheOneReadAfterARestartInTheSameJvm() {
        var root = new CompositeMeterRegistry();
        var first = new SimpleMeterRegistry();
        root.add(first);
        var before = new AtomicInteger(0);
        LiveGauge.register(root, "jobs.running", Tags.empty(), "running", before, AtomicInteger::get);
        root.remove(first); // the application stops; its meters stay in the root registry

        var second = new SimpleMeterRegistry();
        root.add(second);
        var now = new AtomicInteger(3);
        LiveGauge.register(root, "jobs.running", Tags.empty(), "running", now, AtomicInteger::get);

        assertThat(second.get("jobs.running").gauge().value()).isEqualTo(3);
        assertThat(root.find("jobs.running").gauges()).hasSize(1);
    }

    @Test
    void aGaugeOfTheSameNameWithOtherTagsIsKept() {
        var registry = new SimpleMeterRegistry();
        var sqs = new AtomicInteger(1);
        var evalAi = new AtomicInteger(0);
        LiveGauge.register(registry, "dependency.up", Tags.of("dependency", "sqs"), "up", sqs, AtomicInteger::get);
        LiveGauge.register(registry, "dependency.up", Tags.of("dependency", "evalai"), "up", evalAi,
                AtomicInteger::get);

        assertThat(registry.get("dependency.up").tag("dependency", "sqs").gauge().value()).isEqualTo(1);
        assertThat(registry.get("dependency.up").tag("dependency", "evalai").gauge().value()).isZero();
    }
}
