package org.carla.leaderboard.messaging;

/**
 * One message taken from a queue.
 *
 * @param messageId    SQS's id of the message
 * @param body         the body as sent
 * @param receiveCount how many times SQS has handed it out, this time included
 */
public record ReceivedMessage(String messageId, String body, int receiveCount) {
}
