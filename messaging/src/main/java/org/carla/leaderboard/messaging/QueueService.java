package org.carla.leaderboard.messaging;

import java.util.List;

import org.eclipse.microprofile.health.HealthCheck;

/** A service that takes its work from queues, as its health checks ({@link ConsumerHealth}) see it. */
public interface QueueService {

    /** Alive while its consumers' polling threads poll ({@link QueueConsumers#liveness()}). */
    HealthCheck liveness();

    /** The queues it needs to take work: the ones it consumes and the ones it publishes to ({@link QueuesConfig}). */
    List<String> neededQueues();
}
