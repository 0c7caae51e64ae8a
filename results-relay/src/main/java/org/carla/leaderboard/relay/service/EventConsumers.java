package org.carla.leaderboard.relay.service;

import java.util.List;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.messaging.QueueConsumer;
import org.carla.leaderboard.messaging.QueueConsumers;
import org.carla.leaderboard.messaging.QueueService;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.carla.leaderboard.relay.config.RelayConfig;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;

import io.micrometer.core.instrument.MeterRegistry;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Runs the shared consumer on the relay's two queues while the relay is active ({@code lease.Leadership}):
 * {@code submission-events} (lifecycle events from ingest-service and job-launcher) and {@code progress-reports} (from
 * the submission pods), each with its own consumer settings. A consumer stopped cannot start again, so each active term
 * gets consumers of its own.
 */
@ApplicationScoped
public class EventConsumers implements QueueService {

    private final Supplier<QueueConsumers> fresh;
    private QueueConsumers current;

    EventConsumers(SqsClient sqs, QueuesConfig queues, RelayConfig config, SubmissionEventHandler events,
            ProgressReportHandler progress, MeterRegistry registry) {
        this.fresh = () -> QueueConsumers.of(
                new QueueConsumer(sqs, queues.binding(QueuesConfig.SUBMISSION_EVENTS), events,
                        config.submissionEvents().options(), registry),
                new QueueConsumer(sqs, queues.binding(QueuesConfig.PROGRESS_REPORTS), progress,
                        config.progressReports().options(), registry));
    }

    /** Starts consuming both queues, unless they are consumed already. */
    public synchronized void start() {
        if (current == null) {
            current = fresh.get();
            current.start();
        }
    }

    /** Stops receiving and lets the messages in hand finish; the others stay on their queues for the active relay. */
    public void stop() {
        QueueConsumers stopping;
        synchronized (this) {
            stopping = current;
            current = null;
        }
        if (stopping != null) {
            stopping.close();
        }
    }

    /**
     * Alive while both consumers' polling threads poll; a standby relay has none and is alive (a restart would not
     * make it consume).
     */
    @Override
    public HealthCheck liveness() {
        return () -> {
            QueueConsumers consumers;
            synchronized (this) {
                consumers = current;
            }
            return consumers != null ? consumers.liveness().call()
                    : HealthCheckResponse.named(QueueConsumers.LIVENESS).up()
                            .withData("consuming", "no: standby (another replica is active)").build();
        };
    }

    /** The two queues it reads (its tables: {@code health.TablesReadiness}). */
    @Override
    public List<String> neededQueues() {
        return List.of(QueuesConfig.SUBMISSION_EVENTS, QueuesConfig.PROGRESS_REPORTS);
    }
}
