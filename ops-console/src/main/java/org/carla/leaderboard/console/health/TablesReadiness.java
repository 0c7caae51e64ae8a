package org.carla.leaderboard.console.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.console.client.SubmissionTables;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready when every leaderboard's table answers: without them the page has nothing to show. The cluster, the queues
 * and EvalAI are not part of it; a page whose Kubernetes column is empty still helps.
 */
@Readiness
@ApplicationScoped
public class TablesReadiness implements HealthCheck {

    private final TrackCatalog catalog;
    private final SubmissionTables tables;

    TablesReadiness(TrackCatalog catalog, SubmissionTables tables) {
        this.catalog = catalog;
        this.tables = tables;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("submissions tables");
        boolean up = true;
        for (var leaderboard : catalog.leaderboards().values()) {
            try {
                tables.describe(leaderboard.submissionsTable());
                response.withData(leaderboard.submissionsTable(), "reachable");
            } catch (RuntimeException e) {
                up = false;
                response.withData(leaderboard.submissionsTable(), "unreachable: " + e.getMessage());
            }
        }
        return response.status(up).build();
    }
}
