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

import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The consumer's checks, from messaging: alive while its polling thread polls; ready while the queue it reads and the
 * one it publishes to answer.
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
}
