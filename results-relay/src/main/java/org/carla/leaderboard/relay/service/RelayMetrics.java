package org.carla.leaderboard.relay.service;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.MeterRegistry;

/** What happened to each event: relayed to EvalAI, or dropped (late, repeated), by event type. */
@ApplicationScoped
class RelayMetrics {

    private final MeterRegistry registry;

    RelayMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void relayed(String type) {
        registry.counter("relay.events.relayed", "type", type).increment();
    }

    void dropped(String type, String why) {
        // A name of its own: Prometheus wants one set of tag keys per name.
        registry.counter("relay.events.dropped", "type", type, "why", why).increment();
    }

    void cancelRequested() {
        registry.counter("relay.cancel.requested").increment();
    }
}
