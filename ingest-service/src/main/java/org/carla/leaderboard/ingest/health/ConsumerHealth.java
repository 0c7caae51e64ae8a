package org.carla.leaderboard.ingest.health;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.carla.leaderboard.ingest.service.SubmissionsConsumer;
import org.carla.leaderboard.messaging.Dependencies;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.carla.leaderboard.messaging.QueuesReadiness;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.health.api.Wellness;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The intake's checks from messaging: alive while the consumer's polling thread polls; ready while the queue it reads
 * and the two it publishes to answer; degraded ({@code /q/health/well}, {@code leaderboard_dependency_up}) while EvalAI,
 * DynamoDB or SQS is down. EvalAI down never makes it unready: a message that needs EvalAI waits on its queue.
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
    HealthCheck consumerPolls(SubmissionsConsumer consumer) {
        return consumer.consumers().liveness();
    }

    @Produces
    @Readiness
    @Singleton
    HealthCheck queuesAnswer(SqsClient sqs, QueuesConfig queues, Dependencies dependencies) {
        return new QueuesReadiness(sqs, List.of(queues.binding(QueuesConfig.SUBMISSIONS),
                queues.binding(QueuesConfig.LAUNCH_REQUESTS), queues.binding(QueuesConfig.SUBMISSION_EVENTS)),
                dependencies);
    }

    @Produces
    @Wellness
    @Singleton
    HealthCheck dependenciesAnswer(Dependencies dependencies) {
        return dependencies.wellness();
    }
}
