package org.carla.leaderboard.launcher.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.launcher.record.SubmissionRecords;
import org.carla.leaderboard.messaging.Dependencies;
import org.carla.leaderboard.messaging.Dependency;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready when every leaderboard's submissions table answers a read (a launch request is claimed there before its Job
 * is made); each probe also tells {@link Dependencies#DYNAMODB} what it saw.
 */
@Readiness
@ApplicationScoped
public class RecordsReadiness implements HealthCheck {

    private final SubmissionRecords records;
    private final Dependency dependency;

    RecordsReadiness(SubmissionRecords records, Dependencies dependencies) {
        this.records = records;
        this.dependency = dependencies.get(Dependencies.DYNAMODB);
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named(Dependencies.DYNAMODB);
        String problem = null;
        for (var table : records.probe().entrySet()) {
            response.withData(table.getKey(), table.getValue());
            if (!"answers".equals(table.getValue())) {
                problem = table.getKey() + ": " + table.getValue();
            }
        }
        dependency.observed(problem == null, problem);
        return response.status(problem == null).build();
    }
}
