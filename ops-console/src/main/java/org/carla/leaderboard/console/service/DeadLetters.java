package org.carla.leaderboard.console.service;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The dead-letter queues, as an operator sees and empties them: look at the messages with the reasons the consumer
 * gave, and move chosen ones (or all) back to the queue they came from. One implementation today
 * ({@code client.SqsDeadLetters}); the {@code messaging} module's redrive takes its place once it lands.
 */
public interface DeadLetters {

    /** A dead-lettered message as its attributes describe it ({@code dead-letter-reason}, ...). */
    record Letter(String messageId, String sourceQueue, String reason, String error, Instant deadLetteredAt,
            int receiveCount, String body) {
    }

    /** What a redrive did: the ids moved back, and the ids asked for that were not in the queue (moved already). */
    record Redrive(List<String> moved, List<String> notFound) {
    }

    /** At most {@code max} messages of the queue's dead-letter queue, without hiding any from anyone. */
    List<Letter> peek(String queue, int max);

    /**
     * Moves the messages of the queue's dead-letter queue whose ids are given (all when {@code ids} is empty, at most
     * {@code max}) back to the queue: sent first, deleted after, so a failure in between repeats a message rather than
     * losing it.
     */
    Redrive redrive(String queue, Set<String> ids, int max, String operator);
}
