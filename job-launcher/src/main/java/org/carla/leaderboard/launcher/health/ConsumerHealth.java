package org.carla.leaderboard.launcher.health;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.carla.leaderboard.launcher.service.LaunchRequestConsumer;
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
 * The launcher's checks from messaging: alive while the consumer's polling thread polls; ready while the queue it reads
 * and the one it publishes to answer ({@link KubernetesApiCheck} adds the API server); the Kubernetes API's and SQS's
 * state as last probed on {@code /q/health/well} and {@code leaderboard_dependency_up}.
 */
@ApplicationScoped
public class ConsumerHealth {

    @Produces
    @Liveness
    @Singleton
    HealthCheck consumerPolls(LaunchRequestConsumer consumer) {
        return consumer.consumers().liveness();
    }

    @Produces
    @Readiness
    @Singleton
    HealthCheck queuesAnswer(SqsClient sqs, QueuesConfig queues, Dependencies dependencies) {
        return new QueuesReadiness(sqs, List.of(queues.binding(QueuesConfig.LAUNCH_REQUESTS),
                queues.binding(QueuesConfig.SUBMISSION_EVENTS)), dependencies);
    }

    @Produces
    @Wellness
    @Singleton
    HealthCheck dependenciesAnswer(Dependencies dependencies) {
        return dependencies.wellness();
    }

    @Produces
    @Singleton
    Dependencies dependencies(MeterRegistry registry) {
        return new Dependencies(registry);
    }
}
