package org.carla.leaderboard.podruntime.role;

import java.time.Clock;
import java.time.Instant;

import org.carla.leaderboard.podruntime.supervisor.DecisionLog;

/**
 * One attempt of a container (Kubernetes restarts it after a crash): what the status files say about its pair, the log
 * of its decisions, and the time. K, the number of crash files this container left before, is in {@link #status()}.
 */
public record Attempt(PairStatus status, DecisionLog log, Clock clock) {

    public Instant now() {
        return clock.instant();
    }

    /** K: how many earlier attempts of this container crashed. */
    public int crashes() {
        return status.attemptIndex();
    }
}
