package org.carla.leaderboard.messaging;

import java.time.Duration;
import java.time.Instant;

/**
 * What a {@link QueueConsumer} is doing, for health checks.
 *
 * @param queue          the queue's name
 * @param started        {@link QueueConsumer#start()} was called and {@link QueueConsumer#close()} was not
 * @param pollerAlive    its polling thread runs (it ends only on shutdown or on an {@link Error})
 * @param sinceLastPoll  time since the poll loop's last step; {@code null} before the start
 * @param stalledAfter   the bound on {@code sinceLastPoll} past which the loop counts as wedged
 * @param inFlight       messages being handled right now
 * @param queueReachable the last receive answered (a queue outage is not a reason to restart: readiness says so)
 * @param outageSince    since when receives fail; {@code null} when they answer
 */
public record ConsumerState(String queue, boolean started, boolean pollerAlive, Duration sinceLastPoll,
        Duration stalledAfter, int inFlight, boolean queueReachable, Instant outageSince) {

    /** Polling: started, its thread alive and not wedged. What liveness asks of every consumer. */
    public boolean live() {
        return started && pollerAlive && sinceLastPoll != null && sinceLastPoll.compareTo(stalledAfter) <= 0;
    }
}
