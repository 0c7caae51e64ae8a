package org.carla.leaderboard.ingest.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.carla.leaderboard.messaging.Dependencies;
import org.eclipse.microprofile.health.HealthCheck;

import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.health.api.Wellness;

/**
 * EvalAI, DynamoDB and SQS as the intake last found them: {@code leaderboard_dependency_up{dependency}} and the
 * wellness check {@code /q/health/well}. EvalAI down makes the service degraded, not unready: readiness is only what it
 * needs to take messages off its queue, and a message that needs EvalAI waits there.
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
