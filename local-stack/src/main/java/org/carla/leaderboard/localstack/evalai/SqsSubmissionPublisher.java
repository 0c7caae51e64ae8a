package org.carla.leaderboard.localstack.evalai;

import java.util.Map;
import java.util.Objects;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Publishes EvalAI's messages as EvalAI's {@code publish_submission_message} does with a challenge's host queue
 * ({@code use_host_sqs}: the host's keys, the challenge's {@code queue} name, its {@code queue_aws_region}):
 * {@code get_or_create_sqs_queue} looks the queue up by name ({@code GetQueueUrl}) and, when that fails for any
 * reason, creates a queue of that name ({@code CreateQueue}, with the challenge's retention); then it sends.
 */
public final class SqsSubmissionPublisher implements SubmissionPublisher {

    /** A challenge's default {@code sqs_retention_period} (4 days), what EvalAI creates a missing queue with. */
    static final String EVALAI_RETENTION_SECONDS = "345600";

    private final SqsClient sqs;
    private final String queueName;

    /** The client (signing with the host's keys) stays the caller's: this publisher never closes it. */
    public SqsSubmissionPublisher(SqsClient sqs, String queueName) {
        this.sqs = Objects.requireNonNull(sqs, "sqs");
        this.queueName = Objects.requireNonNull(queueName, "queueName");
    }

    @Override
    public void publish(String messageBody) {
        String queueUrl;
        try {
            queueUrl = sqs.getQueueUrl(request -> request.queueName(queueName)).queueUrl();
        } catch (SqsException lookupFailed) {
            queueUrl = sqs.createQueue(request -> request.queueName(queueName).attributes(
                    Map.of(QueueAttributeName.MESSAGE_RETENTION_PERIOD, EVALAI_RETENTION_SECONDS))).queueUrl();
        }
        String url = queueUrl;
        sqs.sendMessage(request -> request.queueUrl(url).messageBody(messageBody));
    }
}
