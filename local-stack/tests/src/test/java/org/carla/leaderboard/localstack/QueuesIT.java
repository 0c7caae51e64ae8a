package org.carla.leaderboard.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;

import org.carla.leaderboard.localstack.aws.ElasticMqServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** ElasticMQ through the AWS SDK: the contract's queues, a round trip, dead-lettering after 200 receives. */
class QueuesIT {

    static RunningStack stack;

    @BeforeAll
    static void start() {
        stack = LocalStack.builder().components("sqs").start();
    }

    @AfterAll
    static void stop() {
        stack.close();
    }

    @Test
    void everyContractQueueHasADeadLetterQueueAfter200Receives() {
        assertThat(LocalStack.QUEUES).contains("progress-reports");
        for (String queue : LocalStack.QUEUES) {
            var attributes = stack.sqs().getQueueAttributes(r -> r.queueUrl(stack.queueUrl(queue))
                    .attributeNames(QueueAttributeName.REDRIVE_POLICY)).attributes();
            var deadLetterArn = stack.sqs().getQueueAttributes(r -> r.queueUrl(stack.deadLetterQueueUrl(queue))
                    .attributeNames(QueueAttributeName.QUEUE_ARN)).attributes().get(QueueAttributeName.QUEUE_ARN);
            assertThat(stack.deadLetterQueueUrl(queue)).endsWith("/" + queue + "-dlq");
            assertThat(attributes.get(QueueAttributeName.REDRIVE_POLICY))
                    .contains(deadLetterArn)
                    .containsPattern("\"maxReceiveCount\"\\s*:\\s*\"?200\"?");
        }
        assertThat(stack.quarkusConfig())
                .containsEntry("queues.submissions.url", stack.queueUrl("submissions"))
                .containsEntry("queues.submissions.dead-letter-url", stack.deadLetterQueueUrl("submissions"))
                .containsEntry("quarkus.sqs.aws.region", "us-east-1");
    }

    @Test
    void aComponentNotStartedFailsClearly() {
        assertThatThrownBy(stack::dynamoDb).isInstanceOf(IllegalStateException.class).hasMessageContaining("dynamodb");
        assertThatThrownBy(() -> stack.queueUrl("no-such-queue")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("submissions");
    }

    @Test
    void aMessageSentIsReceivedOnceAndGoneWhenDeleted() {
        String url = stack.queueUrl("submissions");
        stack.sqs().sendMessage(r -> r.queueUrl(url).messageBody("{\"submission_pk\": 42}"));

        var received = stack.sqs().receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(5)).messages();
        assertThat(received).extracting(Message::body).containsExactly("{\"submission_pk\": 42}");
        stack.sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(received.get(0).receiptHandle()));

        assertThat(stack.sqs().receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(1)).messages()).isEmpty();
    }

    @Test
    void aMessageReceived200TimesWithoutDeletionLandsInTheDeadLetterQueue() {
        String url = stack.queueUrl("launch-requests");
        stack.sqs().sendMessage(r -> r.queueUrl(url).messageBody("poison"));

        var receives = new ArrayList<Message>();
        // Visibility timeout 0: the message is visible again at once, as if every consumer had failed on it.
        for (int attempt = 0; attempt < ElasticMqServer.MAX_RECEIVE_COUNT + 5; attempt++) {
            receives.addAll(stack.sqs().receiveMessage(r -> r.queueUrl(url).visibilityTimeout(0).waitTimeSeconds(1))
                    .messages());
        }

        assertThat(receives).hasSize(200).extracting(Message::body).containsOnly("poison");
        var deadLetters = stack.sqs().receiveMessage(r -> r.queueUrl(stack.deadLetterQueueUrl("launch-requests"))
                .waitTimeSeconds(5)).messages();
        assertThat(deadLetters).extracting(Message::body).containsExactly("poison");
    }
}
