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

/**
 * Runs the shared queue consumer on the relay's two queues for the life of the service: {@code submission-events}
 * (lifecycle events from ingest-service and job-launcher) and {@code progress-reports} (from the submission pods).
 */
@ApplicationScoped
public class EventConsumer {

    private final QueueConsumer events;
    private final QueueConsumer progress;

    EventConsumer(SqsClient sqs, QueuesConfig queues, RelayConfig config, SubmissionEventHandler eventHandler,
            ProgressReportHandler progressHandler, MeterRegistry registry) {
        this.events = new QueueConsumer(sqs, queues.binding(QueuesConfig.SUBMISSION_EVENTS), eventHandler,
                config.consumer().options(), registry);
        this.progress = new QueueConsumer(sqs, queues.binding(QueuesConfig.PROGRESS_REPORTS), progressHandler,
                config.consumer().options(), registry);
    }

    void start(@Observes StartupEvent startup) {
        events.start();
        progress.start();
    }

    void stop(@Observes ShutdownEvent shutdown) {
        progress.close();
        events.close();
    }

    /** Whether both queues answer. */
    public boolean reachable() {
        return events.reachable() && progress.reachable();
    }
}
