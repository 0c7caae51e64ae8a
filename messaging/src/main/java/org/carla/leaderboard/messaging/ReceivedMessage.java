package org.carla.leaderboard.messaging;

import java.time.Instant;

/**
 * One message taken from a queue.
 *
 * @param messageId    SQS's id of the message
 * @param body         the body as sent
 * @param receiveCount how many times SQS has handed it out, this time included
 * @param sentAt       when the producer sent it (SQS's {@code SentTimestamp}), for end-to-end timings; {@code null}
 *                     when unknown
 */
public record ReceivedMessage(String messageId, String body, int receiveCount, Instant sentAt) {

    public ReceivedMessage(String messageId, String body, int receiveCount) {
        this(messageId, body, receiveCount, null);
    }
}
