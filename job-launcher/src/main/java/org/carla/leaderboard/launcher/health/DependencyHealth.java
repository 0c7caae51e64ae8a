package org.carla.leaderboard.launcher.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.carla.leaderboard.messaging.Dependencies;
import org.eclipse.microprofile.health.HealthCheck;

import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.health.api.Wellness;

/**
 * The Kubernetes API and SQS as the launcher last found them: {@code leaderboard_dependency_up{dependency}} and the
 * wellness check {@code /q/health/well}, beside the readiness checks that probe them.
 */
@ApplicationScoped
public class DependencyHealth {

    @Produces
    @Singleton
    Dependencies dependencies(MeterRegistry registry) {
        return new Dependencies(registry);
    }

    @Produces
    @Wellness
    @Singleton
    HealthCheck dependenciesAnswer(Dependencies dependencies) {
        return dependencies.wellness();
    }
}
