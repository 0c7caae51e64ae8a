package org.carla.leaderboard.relay.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.relay.client.EvalAiClient;
import org.carla.leaderboard.relay.service.EventConsumer;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import software.amazon.awssdk.core.exception.SdkException;

/** Ready when the queue, every leaderboard's submissions table and EvalAI answer. */
@Readiness
@ApplicationScoped
public class RelayReadiness implements HealthCheck {

    private final EventConsumer consumer;
    private final SubmissionRecords records;
    private final TrackCatalog catalog;
    private final EvalAiClient evalAi;

    RelayReadiness(EventConsumer consumer, SubmissionRecords records, TrackCatalog catalog, EvalAiClient evalAi) {
        this.consumer = consumer;
        this.records = records;
        this.catalog = catalog;
        this.evalAi = evalAi;
    }

    @Override
    public HealthCheckResponse call() {
        boolean sqs = consumer.reachable();
        boolean dynamoDb = tablesReachable();
        boolean evalAiUp = evalAiReachable();
        return HealthCheckResponse.named("results-relay")
                .withData("sqs", sqs)
                .withData("dynamodb", dynamoDb)
                .withData("evalai", evalAiUp)
                .status(sqs && dynamoDb && evalAiUp)
                .build();
    }

    private boolean evalAiReachable() {
        try {
            return evalAi.reachable();
        } catch (RuntimeException e) {
            return false;
        }
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
