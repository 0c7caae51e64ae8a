package org.carla.leaderboard.launcher.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.launcher.service.LaunchRequestConsumer;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready when the launch-requests queue answers. */
@Readiness
@ApplicationScoped
public class LaunchQueueCheck implements HealthCheck {

    private final LaunchRequestConsumer consumer;

    LaunchQueueCheck(LaunchRequestConsumer consumer) {
        this.consumer = consumer;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("launch-requests-queue").status(consumer.reachable()).build();
    }
}
