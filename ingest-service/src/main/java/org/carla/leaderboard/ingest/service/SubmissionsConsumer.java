package org.carla.leaderboard.ingest.service;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.carla.leaderboard.ingest.config.IngestConfig;
import org.carla.leaderboard.messaging.QueueConsumer;
import org.carla.leaderboard.messaging.QueueConsumers;
import org.carla.leaderboard.messaging.QueueService;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.eclipse.microprofile.health.HealthCheck;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import software.amazon.awssdk.services.sqs.SqsClient;

/** Runs the shared consumer on {@code submissions} with the intake as its handler, from start to shutdown. */
@ApplicationScoped
public class SubmissionsConsumer implements QueueService {

    private final QueueConsumers consumers;

    SubmissionsConsumer(SqsClient sqs, QueuesConfig queues, SubmissionIntake intake, IngestConfig config,
            MeterRegistry registry) {
        this.consumers = QueueConsumers.of(new QueueConsumer(sqs, queues.binding(QueuesConfig.SUBMISSIONS), intake,
                config.consumer().options(), registry));
    }

    void start(@Observes StartupEvent event) {
        consumers.start();
    }

    /** Lets the messages in hand finish; the others stay on the queue for the next instance. */
    void stop(@Observes ShutdownEvent event) {
        consumers.close();
    }

    @Override
    public HealthCheck liveness() {
        return consumers.liveness();
    }

    /** The queue it reads and the two it publishes to. */
    @Override
    public List<String> neededQueues() {
        return List.of(QueuesConfig.SUBMISSIONS, QueuesConfig.LAUNCH_REQUESTS, QueuesConfig.SUBMISSION_EVENTS);
    }
}
