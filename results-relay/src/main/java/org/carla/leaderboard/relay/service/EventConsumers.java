package org.carla.leaderboard.relay.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.carla.leaderboard.messaging.QueueConsumer;
import org.carla.leaderboard.messaging.QueueConsumers;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.carla.leaderboard.relay.config.RelayConfig;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Runs the shared consumer on the relay's two queues from start to shutdown: {@code submission-events} (lifecycle
 * events from ingest-service and job-launcher) and {@code progress-reports} (from the submission pods), each with its
 * own consumer settings.
 */
@ApplicationScoped
public class EventConsumers {

    private final QueueConsumers consumers;

    EventConsumers(SqsClient sqs, QueuesConfig queues, RelayConfig config, SubmissionEventHandler events,
            ProgressReportHandler progress, MeterRegistry registry) {
        this.consumers = QueueConsumers.of(
                new QueueConsumer(sqs, queues.binding(QueuesConfig.SUBMISSION_EVENTS), events,
                        config.submissionEvents().options(), registry),
                new QueueConsumer(sqs, queues.binding(QueuesConfig.PROGRESS_REPORTS), progress,
                        config.progressReports().options(), registry));
    }

    void start(@Observes StartupEvent event) {
        consumers.start();
    }

    /** Lets the messages in hand finish; the others stay on their queues for the next instance. */
    void stop(@Observes ShutdownEvent event) {
        consumers.close();
    }

    public QueueConsumers consumers() {
        return consumers;
    }
}
