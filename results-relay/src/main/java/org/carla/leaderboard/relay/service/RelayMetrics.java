package org.carla.leaderboard.relay.service;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.MeterRegistry;

/** What happened to each event: relayed to EvalAI, or dropped (another run, late, repeated, not believed), by type. */
@ApplicationScoped
class RelayMetrics {

    static final String UNKNOWN_SUBMISSION = "unknown-submission";
    static final String OTHER_RUN = "other-run";
    static final String NOT_RUNNING = "not-running";
    static final String FINAL = "final";
    static final String REPEAT = "repeat";

    private final MeterRegistry registry;

    RelayMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void relayed(String type) {
        registry.counter("relay.events.relayed", "type", type).increment();
    }

    /** A progress report believed but carrying no news (a heartbeat or a repeat): only the record's progress moved. */
    void unchanged(String type) {
        registry.counter("relay.events.unchanged", "type", type).increment();
    }

    void dropped(String type, String reason) {
        // A name of its own: Prometheus wants one set of tag keys per name.
        registry.counter("relay.events.dropped", "type", type, "reason", reason).increment();
    }

    void cancelRequested() {
        registry.counter("relay.cancel.requested").increment();
    }
}
