package org.carla.leaderboard.relay.config;

import java.time.Clock;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The relay's clock: every time it decides by (when EvalAI is next asked about a run, when a run went silent, the times
 * it records) is read from it. The system's here; the tests put one in its place that they move forward, so a minute
 * of the relay's cadence costs them no minute.
 */
public class RelayClock {

    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
