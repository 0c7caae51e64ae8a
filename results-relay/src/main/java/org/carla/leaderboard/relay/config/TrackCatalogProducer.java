package org.carla.leaderboard.relay.config;

import jakarta.inject.Singleton;
import jakarta.enterprise.inject.Produces;

import org.carla.leaderboard.domain.track.EvaluationConfig;
import org.carla.leaderboard.domain.track.TrackCatalog;

/** The domain's track catalog over the shared {@code evaluation.*} configuration: bucket, table, qualifier rules. */
public class TrackCatalogProducer {

    @Produces
    @Singleton
    TrackCatalog trackCatalog(EvaluationConfig config) {
        return new TrackCatalog(config);
    }
}
