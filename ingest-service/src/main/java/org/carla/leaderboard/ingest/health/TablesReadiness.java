package org.carla.leaderboard.ingest.health;

import java.util.TreeSet;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.messaging.Dependencies;
import org.carla.leaderboard.messaging.Dependency;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Ready when every leaderboard's submissions table and the qualifier table can be described; each probe also tells
 * {@link Dependencies#DYNAMODB} what it saw.
 */
@Readiness
@ApplicationScoped
public class TablesReadiness implements HealthCheck {

    private final DynamoDbClient dynamo;
    private final Dependency dependency;
    private final TreeSet<String> tables = new TreeSet<>();

    TablesReadiness(DynamoDbClient dynamo, TrackCatalog catalog, Dependencies dependencies) {
        this.dynamo = dynamo;
        this.dependency = dependencies.get(Dependencies.DYNAMODB);
        catalog.leaderboards().values().forEach(leaderboard -> tables.add(leaderboard.submissionsTable()));
        tables.add(catalog.qualifierTable());
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("dynamodb").up();
        boolean up = true;
        String problem = null;
        for (String table : tables) {
            String state = state(table);
            response.withData(table, state);
            if (!"ACTIVE".equals(state) && !"UPDATING".equals(state)) {
                up = false;
                problem = table + ": " + state;
            }
        }
        dependency.observed(up, problem);
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
