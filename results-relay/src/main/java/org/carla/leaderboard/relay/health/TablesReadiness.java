package org.carla.leaderboard.relay.health;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.messaging.Dependencies;
import org.carla.leaderboard.messaging.Dependency;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import software.amazon.awssdk.core.exception.SdkException;

/**
 * Ready while every leaderboard's submissions table and the qualifier table answer; each probe also tells
 * {@link Dependencies#DYNAMODB} what it saw.
 */
@Readiness
@ApplicationScoped
public class TablesReadiness implements HealthCheck {

    private final SubmissionRecords records;
    private final Dependency dependency;
    private final List<String> tables = new ArrayList<>();

    TablesReadiness(SubmissionRecords records, TrackCatalog catalog, Dependencies dependencies) {
        this.records = records;
        this.dependency = dependencies.get(Dependencies.DYNAMODB);
        catalog.leaderboards().values().forEach(leaderboard -> tables.add(leaderboard.submissionsTable()));
        tables.add(catalog.qualifierTable());
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named(Dependencies.DYNAMODB);
        String problem = null;
        for (String table : tables) {
            try {
                records.describe(table);
                response.withData(table, true);
            } catch (SdkException e) {
                problem = table + ": " + e.getMessage();
                response.withData(table, false);
            }
        }
        dependency.observed(problem == null, problem);
        return response.status(problem == null).build();
    }
}
