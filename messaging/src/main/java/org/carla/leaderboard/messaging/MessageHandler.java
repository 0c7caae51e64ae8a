package org.carla.leaderboard.messaging;

/**
 * What a service does with one message. Returning normally means done: the message is deleted. Throwing
 * {@link RejectedMessageException} or {@link org.carla.leaderboard.domain.event.MalformedEventException} means it can
 * never succeed: it goes to the dead-letter queue at once, with the reason. Any other exception is taken as passing
 * (a dependency down): the message waits on the queue, invisible for a back-off that grows per receive up to
 * {@link ConsumerOptions#maxRetryBackoff()}, and is tried again, for as long as the queue keeps it; the consumer never
 * dead-letters it. So a handler throws {@code RejectedMessageException} only for what no retry can mend, and
 * {@link ArrivedEarlyException} for a message that must wait for another one (the same back-off, logged as expected).
 */
@FunctionalInterface
public interface MessageHandler {

    void handle(ReceivedMessage message) throws Exception;
}
