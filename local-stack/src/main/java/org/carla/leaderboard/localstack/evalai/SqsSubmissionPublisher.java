package org.carla.leaderboard.localstack.evalai;

import java.util.Objects;

import software.amazon.awssdk.services.sqs.SqsClient;

/** Publishes EvalAI's messages on an SQS queue, as EvalAI's {@code publish_submission_message} does. */
public final class SqsSubmissionPublisher implements SubmissionPublisher {

    private final SqsClient sqs;
    private final String queueUrl;

    /** The client stays the caller's: this publisher never closes it. */
    public SqsSubmissionPublisher(SqsClient sqs, String queueUrl) {
        this.sqs = Objects.requireNonNull(sqs, "sqs");
        this.queueUrl = Objects.requireNonNull(queueUrl, "queueUrl");
    }

    @Override
    public void publish(String messageBody) {
        sqs.sendMessage(request -> request.queueUrl(queueUrl).messageBody(messageBody));
    }
}
