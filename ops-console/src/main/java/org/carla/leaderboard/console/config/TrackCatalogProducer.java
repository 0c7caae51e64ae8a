package org.carla.leaderboard.console.config;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.carla.leaderboard.domain.track.EvaluationConfig;
import org.carla.leaderboard.domain.track.TrackCatalog;

/** The leaderboards (tables, buckets) and tracks, read as every service reads them. */
public class TrackCatalogProducer {

    @Produces
    @Singleton
    TrackCatalog trackCatalog(EvaluationConfig config) {
        return new TrackCatalog(config);
    }
}
