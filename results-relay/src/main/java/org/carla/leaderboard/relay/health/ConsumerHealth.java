package org.carla.leaderboard.relay.health;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.carla.leaderboard.messaging.Dependencies;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.carla.leaderboard.messaging.QueuesReadiness;
import org.carla.leaderboard.relay.service.EventConsumers;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.health.api.Wellness;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The relay's checks from messaging: alive while both consumers' polling threads poll (a standby has none and is
 * alive); ready while both queues it reads
 * answer (and its tables, {@link TablesReadiness}); degraded ({@code /q/health/well}, {@code leaderboard_dependency_up})
 * while EvalAI, DynamoDB or SQS is down. EvalAI down never makes it unready: an event that needs EvalAI waits on its
 * queue.
 */
@ApplicationScoped
public class ConsumerHealth {

    @Produces
    @Singleton
    Dependencies dependencies(MeterRegistry registry) {
        return new Dependencies(registry);
    }

    @Produces
    @Liveness
    @Singleton
    HealthCheck consumersPoll(EventConsumers consumers) {
        return consumers.liveness();
    }

    @Produces
    @Readiness
    @Singleton
    HealthCheck queuesAnswer(SqsClient sqs, QueuesConfig queues, Dependencies dependencies) {
        return new QueuesReadiness(sqs, List.of(queues.binding(QueuesConfig.SUBMISSION_EVENTS),
                queues.binding(QueuesConfig.PROGRESS_REPORTS)), dependencies);
    }

    @Produces
    @Wellness
    @Singleton
    HealthCheck dependenciesAnswer(Dependencies dependencies) {
        return dependencies.wellness();
    }
}
