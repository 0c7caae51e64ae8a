package org.carla.leaderboard.messaging;

import java.time.Duration;
import java.util.Map;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionEvent;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * The sending end of a queue, the one way every component publishes an event: the body is the domain's
 * {@link EventCodec} form (plain ASCII, so any value SQS would refuse raw travels escaped), and the message attribute
 * {@value #TYPE_ATTRIBUTE} names the event's type. A failed send throws the SDK's exception: the caller has not
 * published and must not act as if it had.
 */
public final class QueuePublisher {

    /** The message attribute that names the event's type ({@code launch}, {@code job-started}, {@code progress}...). */
    public static final String TYPE_ATTRIBUTE = "type";

    private final SqsClient sqs;
    private final String queueUrl;
    private final Duration timeout;

    private QueuePublisher(SqsClient sqs, String queueUrl, Duration timeout) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
        this.timeout = timeout;
    }

    public static QueuePublisher to(SqsClient sqs, String queueUrl) {
        return new QueuePublisher(sqs, queueUrl, null);
    }

    /** The same queue with every send bounded by {@code timeout} (logcopy must not block its loop on SQS). */
    public QueuePublisher withTimeout(Duration timeout) {
        return new QueuePublisher(sqs, queueUrl, timeout);
    }

    public String queueUrl() {
        return queueUrl;
    }

    public void publish(SubmissionEvent event) {
        send(event.type(), EventCodec.write(event));
    }

    public void publish(LaunchRequest request) {
        send(LaunchRequest.TYPE, EventCodec.write(request));
    }

    public void publish(Progress progress) {
        send(Progress.TYPE, EventCodec.write(progress));
    }

    private void send(String type, String body) {
        sqs.sendMessage(r -> {
            r.queueUrl(queueUrl).messageBody(body).messageAttributes(Map.of(TYPE_ATTRIBUTE,
                    MessageAttributeValue.builder().dataType("String").stringValue(type).build()));
            if (timeout != null) {
                r.overrideConfiguration(o -> o.apiCallTimeout(timeout));
            }
        });
    }
}
