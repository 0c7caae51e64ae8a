package org.carla.leaderboard.ingest.config;

import java.time.Clock;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The intake's clock: the times it records (an announcement's, a launch request's) and the stuck rule
 * {@code unlaunched} decides by are read from it. The system's here; the tests put one in its place that they move
 * forward, so the rule's ten minutes cost them no ten minutes.
 */
public class IntakeClock {

    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
