package org.carla.leaderboard.messaging;

import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * A message on a dead-letter queue, as its attributes describe it. {@link QueueConsumer} writes the five reason
 * attributes when it dead-letters; a message that SQS's redrive policy moved (received {@code maxReceiveCount} times
 * without being deleted: its consumer died on it) has none of them and reads as reason {@value #REDRIVE_POLICY}.
 *
 * @param messageId         the message's id on the dead-letter queue (what {@link DeadLetterQueue#moveBack} takes)
 * @param body              the body, exactly as it was on the source queue
 * @param type              the {@value QueuePublisher#TYPE_ATTRIBUTE} attribute it was published with; {@code null}
 *                          when it had none (EvalAI's announcements)
 * @param reason            {@code dead-letter-reason}: a tag such as {@code malformed-missing-field}
 * @param error             {@code dead-letter-error}: what was wrong; {@code null} when SQS moved it
 * @param sourceQueue       {@code source-queue}: the queue's name; {@code null} when SQS moved it
 * @param originalMessageId {@code original-message-id}: its id on the source queue; {@code null} when SQS moved it
 * @param receiveCount      {@code receive-count}: receives on the source queue when it was dead-lettered; 0 unknown
 * @param sentAt            when it was sent to the dead-letter queue by the consumer (for a message SQS moved: when it
 *                          was first sent to the source queue); {@code null} unknown
 * @param attributes        its other message attributes (the {@code type} included), carried back on a move
 */
public record DeadLetter(String messageId, String body, String type, String reason, String error, String sourceQueue,
        String originalMessageId, int receiveCount, Instant sentAt, Map<String, String> attributes) {

    public static final String REASON = "dead-letter-reason";
    public static final String ERROR = "dead-letter-error";
    public static final String SOURCE_QUEUE = "source-queue";
    public static final String ORIGINAL_MESSAGE_ID = "original-message-id";
    public static final String RECEIVE_COUNT = "receive-count";
    /** Who moved a message back to its queue (an operator's name): kept if it is dead-lettered again. */
    public static final String MOVED_BACK_BY = "redriven-by";
    /** The attributes a dead-lettering adds, dropped when the message is moved back. */
    public static final Set<String> REASON_ATTRIBUTES = Set.of(REASON, ERROR, SOURCE_QUEUE, ORIGINAL_MESSAGE_ID,
            RECEIVE_COUNT);
    /** The reason of a message that SQS's redrive policy moved, which carries no reason attribute. */
    public static final String REDRIVE_POLICY = "redrive-policy";

    public DeadLetter {
        attributes = Map.copyOf(attributes);
    }
}
