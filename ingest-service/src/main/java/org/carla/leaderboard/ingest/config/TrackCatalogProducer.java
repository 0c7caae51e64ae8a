package org.carla.leaderboard.ingest.config;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.carla.leaderboard.domain.track.EvaluationConfig;
import org.carla.leaderboard.domain.track.TrackCatalog;

import io.quarkus.runtime.Startup;

/** The domain's track catalog as a bean, built at start so a configuration error stops the service right away. */
public class TrackCatalogProducer {

    @Produces
    @Singleton
    @Startup
    TrackCatalog trackCatalog(EvaluationConfig config) {
        return new TrackCatalog(config);
    }
}
