package org.carla.leaderboard.messaging;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

import org.jboss.logging.Logger;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The dead-letter queue of one queue, as an operator reads and empties it: list its messages with their reasons, and
 * move chosen ones (by message id) or all back to the queue they came from, the body as it was, their attributes (the
 * {@code type}) kept and the reason attributes dropped. A plain library over the SQS client, for the operators'
 * command line and console.
 *
 * <p>Listing hides nothing for long: it receives with a short visibility so that successive receives make progress,
 * then makes every message it saw visible again (a dead-letter queue has no consumer and no redrive policy, so the
 * receives it counts change nothing). A move sends the copy to the source queue first and deletes the dead letter
 * after, so a failure in between repeats a message rather than losing it: a crash there leaves the message on both
 * queues, and moving it again would send a second copy, which the consumers take as the repeated delivery SQS may make
 * of any message (every handler is idempotent). Moving an id that was moved already finds nothing and sends nothing.
 */
public final class DeadLetterQueue {

    private static final Logger LOG = Logger.getLogger(DeadLetterQueue.class);
    /** How long a listing or a move holds what it received, so the next receive returns other messages. */
    private static final int HOLD_SECONDS = 60;
    private static final int MAX_BY_LENGTH = 256;

    private final SqsClient sqs;
    private final QueueBinding queue;

    private DeadLetterQueue(SqsClient sqs, QueueBinding queue) {
        this.sqs = sqs;
        this.queue = queue;
    }

    public static DeadLetterQueue of(SqsClient sqs, QueueBinding queue) {
        return new DeadLetterQueue(sqs, queue);
    }

    public QueueBinding queue() {
        return queue;
    }

    /** SQS's approximate count of the messages on the dead-letter queue. */
    public long depth() {
        String count = sqs.getQueueAttributes(r -> r.queueUrl(queue.deadLetterUrl())
                .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)).attributes()
                .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES);
        return count == null ? 0 : Long.parseLong(count);
    }

    /** At most {@code max} dead letters, oldest receive first; all of them stay on the queue, visible. */
    public List<DeadLetter> list(int max) {
        var seen = new LinkedHashMap<String, Message>();
        try {
            while (seen.size() < max) {
                List<Message> messages = receive();
                boolean fresh = false;
                for (Message message : messages) {
                    fresh |= seen.put(message.messageId(), message) == null;
                }
                if (!fresh) {
                    break;
                }
            }
        } finally {
            release(seen.values());
        }
        return seen.values().stream().limit(max).map(DeadLetterQueue::letter).toList();
    }

    /** Moves back the dead letters of these ids (see the class comment); an id not on the queue is reported. */
    public MoveBack moveBack(Collection<String> messageIds, String by) {
        Set<String> wanted = Set.copyOf(messageIds);
        return move(wanted, wanted.size(), by);
    }

    /** Moves back every dead letter, at most {@code max} of them. */
    public MoveBack moveBackAll(int max, String by) {
        return move(null, max, by);
    }

    private MoveBack move(Set<String> wanted, int max, String by) {
        String operator = operator(by);
        var moved = new ArrayList<String>();
        var notRemoved = new ArrayList<String>();
        var held = new LinkedHashMap<String, Message>();
        String error = null;
        try {
            while (moved.size() < max && (wanted == null || !moved.containsAll(wanted))) {
                List<Message> messages = receive();
                boolean fresh = false;
                for (Message message : messages) {
                    String id = message.messageId();
                    if (moved.contains(id) || held.put(id, message) != null) {
                        continue;
                    }
                    fresh = true;
                    if ((wanted == null || wanted.contains(id)) && moved.size() < max) {
                        sendBack(message, operator);
                        held.remove(id);
                        moved.add(id);
                        if (!delete(message)) {
                            notRemoved.add(id);
                        }
                    }
                }
                if (!fresh) {
                    break;
                }
            }
        } catch (SdkException e) {
            error = e.getMessage();
            LOG.errorf("dead letters of %s: moving back stopped after %d: %s", queue.name(), moved.size(), error);
        } finally {
            release(held.values());
        }
        var notFound = new LinkedHashSet<String>();
        if (wanted != null) {
            wanted.stream().filter(id -> !moved.contains(id)).sorted().forEach(notFound::add);
        }
        return new MoveBack(List.copyOf(moved), List.copyOf(notFound), List.copyOf(notRemoved), error);
    }

    private void sendBack(Message message, String operator) {
        var attributes = new HashMap<String, MessageAttributeValue>();
        message.messageAttributes().forEach((name, value) -> {
            if (!DeadLetter.REASON_ATTRIBUTES.contains(name) && !DeadLetter.MOVED_BACK_BY.equals(name)) {
                attributes.put(name, value);
            }
        });
        attributes.put(DeadLetter.MOVED_BACK_BY, QueueConsumer.text(operator));
        sqs.sendMessage(r -> r.queueUrl(queue.url()).messageBody(message.body()).messageAttributes(attributes));
        LOG.infof("dead letter %s (reason %s) moved back to %s by %s", message.messageId(),
                QueueConsumer.printable(String.valueOf(letter(message).reason())), queue.name(), operator);
    }

    private boolean delete(Message message) {
        try {
            sqs.deleteMessage(r -> r.queueUrl(queue.deadLetterUrl()).receiptHandle(message.receiptHandle()));
            return true;
        } catch (SdkException e) {
            LOG.errorf("dead letter %s was moved back to %s but stays on its dead-letter queue (%s): moving it again "
                    + "would send a second copy", message.messageId(), queue.name(), e.getMessage());
            return false;
        }
    }

    private List<Message> receive() {
        // A long poll asks every SQS server, so a short queue is not mistaken for an empty one.
        return sqs.receiveMessage(r -> r.queueUrl(queue.deadLetterUrl()).maxNumberOfMessages(10).waitTimeSeconds(1)
                .visibilityTimeout(HOLD_SECONDS).messageAttributeNames("All")
                .messageSystemAttributeNames(MessageSystemAttributeName.SENT_TIMESTAMP)).messages();
    }

    /** Makes what was held visible again; what fails here is visible anyway when its hold ends. */
    private void release(Collection<Message> messages) {
        var entries = new ArrayList<ChangeMessageVisibilityBatchRequestEntry>();
        for (Message message : messages) {
            entries.add(ChangeMessageVisibilityBatchRequestEntry.builder().id(Integer.toString(entries.size()))
                    .receiptHandle(message.receiptHandle()).visibilityTimeout(0).build());
        }
        for (int from = 0; from < entries.size(); from += 10) {
            var batch = entries.subList(from, Math.min(from + 10, entries.size()));
            try {
                sqs.changeMessageVisibilityBatch(r -> r.queueUrl(queue.deadLetterUrl()).entries(batch));
            } catch (SdkException e) {
                LOG.warnf("dead letters of %s: %d stay hidden for up to %d s: %s", queue.name(), batch.size(),
                        HOLD_SECONDS, e.getMessage());
            }
        }
    }

    static DeadLetter letter(Message message) {
        var attributes = new TreeMap<String, String>();
        message.messageAttributes().forEach((name, value) -> {
            if (!DeadLetter.REASON_ATTRIBUTES.contains(name) && value.stringValue() != null) {
                attributes.put(name, value.stringValue());
            }
        });
        String reason = attribute(message, DeadLetter.REASON);
        return new DeadLetter(message.messageId(), message.body(), attribute(message, QueuePublisher.TYPE_ATTRIBUTE),
                reason == null ? DeadLetter.REDRIVE_POLICY : reason, attribute(message, DeadLetter.ERROR),
                attribute(message, DeadLetter.SOURCE_QUEUE), attribute(message, DeadLetter.ORIGINAL_MESSAGE_ID),
                number(attribute(message, DeadLetter.RECEIVE_COUNT)),
                sentAt(message.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP)), attributes);
    }

    private static String attribute(Message message, String name) {
        MessageAttributeValue value = message.messageAttributes().get(name);
        return value == null ? null : value.stringValue();
    }

    private static int number(String text) {
        try {
            return text == null ? 0 : Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Instant sentAt(String millis) {
        try {
            return millis == null ? null : Instant.ofEpochMilli(Long.parseLong(millis));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** An operator's name as it goes into a log line and an attribute: printable, bounded. */
    private static String operator(String by) {
        String clean = by == null || by.isBlank() ? "-" : QueueConsumer.printable(by.strip());
        return clean.length() <= MAX_BY_LENGTH ? clean : clean.substring(0, MAX_BY_LENGTH);
    }

    /**
     * What a move did.
     *
     * @param moved      the dead letters' ids now back on their queue
     * @param notFound   ids asked for and not moved: not on the dead-letter queue (moved already, or never there), or
     *                   not reached because of {@code error}
     * @param notRemoved ids moved back whose dead letter could not be deleted: they are on both queues now, and moving
     *                   them again would send a second copy
     * @param error      why the move stopped early (SQS failed); {@code null} when it did not
     */
    public record MoveBack(List<String> moved, List<String> notFound, List<String> notRemoved, String error) {
    }
}
