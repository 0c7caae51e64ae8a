package org.carla.leaderboard.console.client;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.console.service.DeadLetters;
import org.carla.leaderboard.messaging.QueueBinding;
import org.carla.leaderboard.messaging.QueuesConfig;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * The dead-letter queues over SQS directly, until the {@code messaging} module's redrive lands. A look receives with
 * visibility 0, so it hides nothing from a redrive or another operator (a dead-letter queue has no consumer and no
 * redrive policy, so the receive count it adds means nothing). A redrive takes each message for 30 s, sends it to the
 * queue the configuration names for that dead-letter queue (never a queue a message names), then deletes it; a
 * message it does not want is given back at once.
 */
@ApplicationScoped
public class SqsDeadLetters implements DeadLetters {

    /** The attributes the consumer adds when it dead-letters; not carried back to the source queue. */
    static final Set<String> DEAD_LETTER_ATTRIBUTES = Set.of("dead-letter-reason", "dead-letter-error",
            "source-queue", "original-message-id", "receive-count");
    static final String REDRIVEN_BY = "redriven-by";
    private static final int TAKE_SECONDS = 30;
    private static final int MAX_BODY = 2000;

    private final SqsClient sqs;
    private final QueuesConfig queues;

    SqsDeadLetters(SqsClient sqs, QueuesConfig queues) {
        this.sqs = sqs;
        this.queues = queues;
    }

    @Override
    public List<Letter> peek(String queue, int max) {
        QueueBinding binding = queues.binding(queue);
        var letters = new LinkedHashMap<String, Letter>();
        for (int round = 0; round < max / 10 + 3 && letters.size() < max; round++) {
            List<Message> messages = receive(binding.deadLetterUrl(), 0);
            boolean fresh = false;
            for (Message message : messages) {
                if (letters.size() < max && !letters.containsKey(message.messageId())) {
                    letters.put(message.messageId(), letter(message));
                    fresh = true;
                }
            }
            if (!fresh) {
                break;
            }
        }
        return List.copyOf(letters.values());
    }

    @Override
    public Redrive redrive(String queue, Set<String> ids, int max, String operator) {
        QueueBinding binding = queues.binding(queue);
        var moved = new ArrayList<String>();
        var seen = new HashSet<String>();
        for (int round = 0; round < max / 10 + 5 && moved.size() < max; round++) {
            List<Message> messages = receive(binding.deadLetterUrl(), TAKE_SECONDS);
            boolean fresh = false;
            for (Message message : messages) {
                boolean first = seen.add(message.messageId());
                fresh |= first;
                if (first && (ids.isEmpty() || ids.contains(message.messageId())) && moved.size() < max) {
                    sqs.sendMessage(r -> r.queueUrl(binding.url()).messageBody(message.body())
                            .messageAttributes(carried(message, operator)));
                    sqs.deleteMessage(r -> r.queueUrl(binding.deadLetterUrl()).receiptHandle(message.receiptHandle()));
                    moved.add(message.messageId());
                } else {
                    sqs.changeMessageVisibility(r -> r.queueUrl(binding.deadLetterUrl())
                            .receiptHandle(message.receiptHandle()).visibilityTimeout(0));
                }
            }
            if (!fresh || !ids.isEmpty() && moved.containsAll(ids)) {
                break;
            }
        }
        var notFound = ids.stream().filter(id -> !moved.contains(id)).sorted().toList();
        return new Redrive(List.copyOf(moved), notFound);
    }

    private List<Message> receive(String url, int visibility) {
        return sqs.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(0)
                .visibilityTimeout(visibility).messageAttributeNames("All")
                .messageSystemAttributeNames(MessageSystemAttributeName.SENT_TIMESTAMP)).messages();
    }

    private static Map<String, MessageAttributeValue> carried(Message message, String operator) {
        var attributes = new HashMap<String, MessageAttributeValue>();
        message.messageAttributes().forEach((name, value) -> {
            if (!DEAD_LETTER_ATTRIBUTES.contains(name) && !REDRIVEN_BY.equals(name)) {
                attributes.put(name, value);
            }
        });
        attributes.put(REDRIVEN_BY, MessageAttributeValue.builder().dataType("String")
                .stringValue(printable(operator)).build());
        return attributes;
    }

    static Letter letter(Message message) {
        String body = message.body() == null ? "" : message.body();
        return new Letter(message.messageId(), attribute(message, "source-queue"),
                attribute(message, "dead-letter-reason"), attribute(message, "dead-letter-error"),
                sentAt(message.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP)),
                receiveCount(attribute(message, "receive-count")),
                body.length() <= MAX_BODY ? body : body.substring(0, MAX_BODY) + "...");
    }

    private static String attribute(Message message, String name) {
        MessageAttributeValue value = message.messageAttributes().get(name);
        return value == null ? null : value.stringValue();
    }

    private static Instant sentAt(String millis) {
        try {
            return millis == null ? null : Instant.ofEpochMilli(Long.parseLong(millis));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static int receiveCount(String text) {
        try {
            return text == null ? 0 : Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** An operator's name as an attribute value: printable, bounded. */
    private static String printable(String text) {
        String clean = text == null ? "-" : text.codePoints().filter(c -> c >= 0x20 && c != 0x7f && c < 0xfffe)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        clean = clean.isBlank() ? "-" : clean;
        return clean.length() <= 256 ? clean : clean.substring(0, 256);
    }
}
