package org.carla.leaderboard.ingest.health;

import java.util.TreeSet;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.track.TrackCatalog;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** Ready when every leaderboard's submissions table and the qualifier table can be described. */
@Readiness
@ApplicationScoped
public class TablesReadiness implements HealthCheck {

    private final DynamoDbClient dynamo;
    private final TreeSet<String> tables = new TreeSet<>();

    TablesReadiness(DynamoDbClient dynamo, TrackCatalog catalog) {
        this.dynamo = dynamo;
        catalog.leaderboards().values().forEach(leaderboard -> tables.add(leaderboard.submissionsTable()));
        tables.add(catalog.qualifierTable());
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("dynamodb").up();
        boolean up = true;
        for (String table : tables) {
            String state = state(table);
            response.withData(table, state);
            up &= "ACTIVE".equals(state) || "UPDATING".equals(state);
        }
        return response.status(up).build();
    }

    private String state(String table) {
        try {
            return dynamo.describeTable(r -> r.tableName(table)).table().tableStatusAsString();
        } catch (SdkException e) {
            return "unreachable: " + e.getClass().getSimpleName();
        }
    }
}
