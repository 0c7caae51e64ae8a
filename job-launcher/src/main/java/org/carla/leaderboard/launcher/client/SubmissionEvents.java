package org.carla.leaderboard.launcher.client;

import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.messaging.QueuesConfig;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/** Publishes the launcher's events (job-started, job-finished) on {@code submission-events}. */
@ApplicationScoped
public class SubmissionEvents {

    private final SqsClient sqs;
    private final String queueUrl;

    SubmissionEvents(SqsClient sqs, QueuesConfig queues) {
        this.sqs = sqs;
        this.queueUrl = queues.binding(QueuesConfig.SUBMISSION_EVENTS).url();
    }

    /** Sends the event; an SDK exception means it was not sent and the caller must try again. */
    public void publish(SubmissionEvent event) {
        sqs.sendMessage(r -> r.queueUrl(queueUrl).messageBody(EventCodec.write(event))
                .messageAttributes(Map.of("type",
                        MessageAttributeValue.builder().dataType("String").stringValue(event.type()).build())));
    }
}
