package org.carla.leaderboard.ingest.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.ingest.service.SubmissionsConsumer;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * Alive while the consumer runs. An unreachable queue does not make it dead (a restart would not help; readiness says
 * so), only a consumer that stopped.
 */
@Liveness
@ApplicationScoped
public class ConsumerLiveness implements HealthCheck {

    private final SubmissionsConsumer consumer;

    ConsumerLiveness(SubmissionsConsumer consumer) {
        this.consumer = consumer;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("submissions-consumer").status(consumer.consuming())
                .withData("in-flight", consumer.inFlight()).build();
    }
}
