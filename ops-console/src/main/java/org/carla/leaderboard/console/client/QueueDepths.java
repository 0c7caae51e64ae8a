package org.carla.leaderboard.console.client;

import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * How full a queue is, from {@code GetQueueAttributes} alone: nothing is received, so looking never counts as a
 * delivery (a receive would, and five of them dead-letter a message). SQS tells the age of the oldest message only
 * through CloudWatch ({@code ApproximateAgeOfOldestMessage}), not through this API.
 */
@ApplicationScoped
public class QueueDepths {

    private final SqsClient sqs;

    QueueDepths(SqsClient sqs) {
        this.sqs = sqs;
    }

    /** Messages waiting, being handled (received, not yet deleted) and delayed (waiting out a back-off). */
    public record Depth(long visible, long inFlight, long delayed) {
    }

    public Depth depth(String queueUrl) {
        Map<QueueAttributeName, String> attributes = sqs.getQueueAttributes(r -> r.queueUrl(queueUrl).attributeNames(
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)).attributes();
        return new Depth(count(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)),
                count(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)),
                count(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)));
    }

    private static long count(String value) {
        try {
            return value == null ? 0 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
