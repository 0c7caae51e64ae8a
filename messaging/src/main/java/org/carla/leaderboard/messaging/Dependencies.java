package org.carla.leaderboard.messaging;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.microprofile.health.HealthCheck;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * The dependencies of one service, by name: one {@link Dependency} each, shared by the code that calls it and the
 * health checks that probe it. A service makes one instance (a CDI producer) and exposes {@link #wellness()}: a
 * degraded service says so there, in its metrics and its log, never by failing readiness for another's outage.
 */
public final class Dependencies {

    public static final String EVALAI = "evalai";
    /**
     * EvalAI taking the host token for what is asked (it refuses it, or its user is not a host of the challenge): a
     * configuration error for an operator to fix, not an outage; the work that needs it waits likewise.
     */
    public static final String EVALAI_TOKEN = "evalai-token";
    public static final String SQS = "sqs";
    public static final String DYNAMODB = "dynamodb";
    public static final String S3 = "s3";
    public static final String KUBERNETES = "kubernetes";
    /** The wellness check's name. */
    public static final String WELLNESS = "dependencies";

    private final MeterRegistry registry;
    private final Map<String, Dependency> byName = new ConcurrentHashMap<>();

    public Dependencies(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The dependency of that name, registered (gauge at 1) the first time it is asked for. */
    public Dependency get(String name) {
        return byName.computeIfAbsent(name, key -> new Dependency(key, registry));
    }

    public List<Dependency.DependencyState> states() {
        return byName.values().stream().map(Dependency::state)
                .sorted(Comparator.comparing(Dependency.DependencyState::name)).toList();
    }

    /** Up when every dependency is; each one's state as data ({@code up}, or since when and why it is down). */
    public HealthCheck wellness() {
        return () -> {
            var data = new LinkedHashMap<String, Object>();
            boolean up = true;
            for (var state : states()) {
                up &= state.up();
                data.put(state.name(), state.up() ? "up" : "down since " + state.downSince() + ": " + state.error());
            }
            return HealthResponses.of(WELLNESS, up, data);
        };
    }
}
