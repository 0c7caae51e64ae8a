package org.carla.leaderboard.relay.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.carla.leaderboard.relay.lease.Leadership;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;

import io.smallrye.health.api.Wellness;

/**
 * Which replica is active, in {@code /q/health/well} (check {@code relay-lease}): always up — a standby is healthy,
 * it takes over when the Lease lapses — with this replica's role, its identity and the holder it last saw.
 */
@ApplicationScoped
public class LeadershipHealth {

    @Produces
    @Wellness
    @Singleton
    HealthCheck lease(Leadership leadership) {
        return () -> {
            var response = HealthCheckResponse.named("relay-lease").up()
                    .withData("role", leadership.active() ? "active" : "standby")
                    .withData("identity", leadership.identity())
                    .withData("holder", leadership.holder().orElse("none seen"));
            return response.build();
        };
    }
}
