package org.carla.leaderboard.console.service;

import java.time.Instant;

import org.carla.leaderboard.messaging.DeadLetter;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * A dead letter as the page and the command line show it: messaging's {@link DeadLetter} with its body cut to
 * {@value #MAX_BODY} characters (a body is the participant's or a broken sender's, of any size).
 *
 * @param reason         {@code dead-letter-reason}, or {@code redrive-policy} for a message SQS's redrive policy moved
 * @param deadLetteredAt when it was sent to the dead-letter queue
 */
@RegisterForReflection
public record DeadLetterView(String messageId, String sourceQueue, String type, String reason, String error,
        Instant deadLetteredAt, int receiveCount, String body) {

    static final int MAX_BODY = 2000;

    static DeadLetterView of(DeadLetter letter) {
        String body = letter.body() == null ? "" : letter.body();
        return new DeadLetterView(letter.messageId(), letter.sourceQueue(), letter.type(), letter.reason(),
                letter.error(), letter.sentAt(), letter.receiveCount(),
                body.length() <= MAX_BODY ? body : body.substring(0, MAX_BODY) + "...");
    }
}
