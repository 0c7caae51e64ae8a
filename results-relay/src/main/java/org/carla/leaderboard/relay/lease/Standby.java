package org.carla.leaderboard.relay.lease;

import jakarta.inject.Singleton;

import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;

/** Skips a scheduled job's execution while this replica is a standby: only the active relay runs the scheduled work. */
@Singleton
public class Standby implements Scheduled.SkipPredicate {

    private final Leadership leadership;

    Standby(Leadership leadership) {
        this.leadership = leadership;
    }

    @Override
    public boolean test(ScheduledExecution execution) {
        return !leadership.active();
    }
}
