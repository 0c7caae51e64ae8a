package org.carla.leaderboard.ingest.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.carla.leaderboard.ingest.config.IngestConfig;
import org.carla.leaderboard.messaging.QueueConsumer;
import org.carla.leaderboard.messaging.QueuesConfig;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import software.amazon.awssdk.services.sqs.SqsClient;

/** Runs the shared consumer on {@code submissions} with the intake as its handler, from start to shutdown. */
@ApplicationScoped
public class SubmissionsConsumer {

    private final QueueConsumer consumer;
    private volatile boolean consuming;

    SubmissionsConsumer(SqsClient sqs, QueuesConfig queues, SubmissionIntake intake, IngestConfig config,
            MeterRegistry registry) {
        this.consumer = new QueueConsumer(sqs, queues.binding(QueuesConfig.SUBMISSIONS), intake,
                config.consumer().options(), registry);
    }

    void start(@Observes StartupEvent event) {
        consumer.start();
        consuming = true;
    }

    /** Lets the messages in hand finish; the others stay on the queue for the next instance. */
    void stop(@Observes ShutdownEvent event) {
        consuming = false;
        consumer.close();
    }

    public boolean consuming() {
        return consuming;
    }

    /** Whether the queue answers. */
    public boolean reachable() {
        return consumer.reachable();
    }

    public int inFlight() {
        return consumer.inFlight();
    }
}
