package org.carla.leaderboard.messaging;

/**
 * What a service does with one message. Returning normally means done: the message is deleted. Throwing
 * {@link RejectedMessageException} or {@link org.carla.leaderboard.domain.event.MalformedEventException} means it can
 * never succeed: it goes to the dead-letter queue at once, with the reason. Any other exception is taken as passing
 * (a dependency down): the message returns to the queue after a back-off, and goes to the dead-letter queue with the
 * last error once it has been received {@link ConsumerOptions#maxReceives()} times.
 */
@FunctionalInterface
public interface MessageHandler {

    void handle(ReceivedMessage message) throws Exception;
}
