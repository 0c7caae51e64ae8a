package org.carla.leaderboard.relay.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.carla.leaderboard.messaging.QueueConsumer;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.carla.leaderboard.relay.config.RelayConfig;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import software.amazon.awssdk.services.sqs.SqsClient;

/** Runs the shared queue consumer on {@code submission-events} for the life of the service. */
@ApplicationScoped
public class EventConsumer {

    private final QueueConsumer consumer;

    EventConsumer(SqsClient sqs, QueuesConfig queues, RelayConfig config, SubmissionEventHandler handler,
            MeterRegistry registry) {
        this.consumer = new QueueConsumer(sqs, queues.binding(QueuesConfig.SUBMISSION_EVENTS), handler,
                config.consumer().options(), registry);
    }

    void start(@Observes StartupEvent startup) {
        consumer.start();
    }

    void stop(@Observes ShutdownEvent shutdown) {
        consumer.close();
    }

    /** Whether {@code submission-events} answers. */
    public boolean reachable() {
        return consumer.reachable();
    }
}
