package org.carla.leaderboard.relay.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.relay.service.EventConsumer;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import software.amazon.awssdk.core.exception.SdkException;

/**
 * Ready when both its queues and every leaderboard's submissions table answer: what the relay needs to take events.
 * EvalAI is not in it: while EvalAI is down the events wait on their queues and the relay stays in service (EvalAI's
 * failures are counted in {@code relay_evalai_failures_total}).
 */
@Readiness
@ApplicationScoped
public class RelayReadiness implements HealthCheck {

    private final EventConsumer consumer;
    private final SubmissionRecords records;
    private final TrackCatalog catalog;

    RelayReadiness(EventConsumer consumer, SubmissionRecords records, TrackCatalog catalog) {
        this.consumer = consumer;
        this.records = records;
        this.catalog = catalog;
    }

    @Override
    public HealthCheckResponse call() {
        boolean sqs = consumer.reachable();
        boolean dynamoDb = tablesReachable();
        return HealthCheckResponse.named("results-relay")
                .withData("sqs", sqs)
                .withData("dynamodb", dynamoDb)
                .status(sqs && dynamoDb)
                .build();
    }

    private boolean tablesReachable() {
        try {
            catalog.leaderboards().values().forEach(leaderboard -> records.describe(leaderboard.submissionsTable()));
            return true;
        } catch (SdkException e) {
            return false;
        }
    }
}
