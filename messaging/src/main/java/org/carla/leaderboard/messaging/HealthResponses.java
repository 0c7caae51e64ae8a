package org.carla.leaderboard.messaging;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.eclipse.microprofile.health.HealthCheckResponse;

/** Health responses built directly, so the checks of this library work without a health implementation present. */
final class HealthResponses {

    private HealthResponses() {
    }

    static HealthCheckResponse of(String name, boolean up, Map<String, Object> data) {
        return new HealthCheckResponse(name, up ? HealthCheckResponse.Status.UP : HealthCheckResponse.Status.DOWN,
                Optional.of(Collections.unmodifiableMap(new LinkedHashMap<>(data))));
    }
}
