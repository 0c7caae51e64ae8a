package org.carla.leaderboard.ingest;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import org.carla.leaderboard.localstack.testing.AheadClock;

/** The intake's clock in its tests, in place of the system's ({@link AheadClock}). */
@Alternative
@Priority(1)
@Singleton
public class TestClock extends AheadClock {
}
