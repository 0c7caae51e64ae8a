package org.carla.leaderboard.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.aws.AwsClients;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

@ExtendWith(ElasticMq.class)
class QueueConsumerTests {

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final RunningStack stack = ElasticMq.stack();
    final QueueBinding queue = ElasticMq.emptied(QueuesConfig.SUBMISSIONS);
    QueueConsumer consumer;

    @AfterEach
    void stop() {
        if (consumer != null) {
            consumer.close();
        }
    }

    static ConsumerOptions fast() {
        return ConsumerOptions.defaults().withWaitTime(Duration.ofSeconds(1)).withVisibilityTimeout(Duration.ofSeconds(2))
                .withRetryBackoff(Duration.ZERO, Duration.ZERO);
    }

    void send(String body) {
        stack.sqs().sendMessage(r -> r.queueUrl(queue.url()).messageBody(body));
    }

    List<Message> deadLetters() {
        return stack.sqs().receiveMessage(r -> r.queueUrl(queue.deadLetterUrl()).maxNumberOfMessages(10)
                .waitTimeSeconds(1).messageAttributeNames("All")).messages();
    }

    long visibleAndInFlight() {
        var attributes = stack.sqs().getQueueAttributes(r -> r.queueUrl(queue.url()).attributeNamesWithStrings(
                "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible")).attributesAsStrings();
        return Long.parseLong(attributes.get("ApproximateNumberOfMessages"))
                + Long.parseLong(attributes.get("ApproximateNumberOfMessagesNotVisible"));
    }

    @Test
    void handledMessagesAreDeleted() {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        consumer = new QueueConsumer(stack.sqs(), queue, message -> seen.add(message.body()), fast(), registry);
        consumer.start();
        for (int i = 0; i < 25; i++) {
            send("message " + i);
        }
        await().atMost(ElasticMq.PATIENCE).until(() -> seen.size() == 25);
        await().atMost(ElasticMq.PATIENCE).until(() -> visibleAndInFlight() == 0);
        assertThat(deadLetters()).isEmpty();
    }

    @Test
    void aMalformedEventIsDeadLetteredAtOnceWithItsReasonAndItsType() {
        // The services' default visibility (30 s): the delete starts with at least half of it left and is bounded by
        // half, a margin of a second at fast()'s 2 s, which a loaded machine can miss (the message then comes back).
        consumer = new QueueConsumer(stack.sqs(), queue, message -> EventCodec.parseAnnouncement(message.body()),
                fast().withVisibilityTimeout(Duration.ofSeconds(30)), registry);
        consumer.start();
        stack.sqs().sendMessage(r -> r.queueUrl(queue.url())
                .messageBody("{\"challenge_pk\": 1, \"phase_pk\": \"two\", \"submission_pk\": 3}")
                .messageAttributes(Map.of(QueuePublisher.TYPE_ATTRIBUTE, MessageAttributeValue.builder()
                        .dataType("String").stringValue("announcement").build())));
        await().atMost(ElasticMq.PATIENCE).until(() -> !deadLettersPeek().isEmpty());
        Message dead = deadLetters().get(0);
        assertThat(dead.body()).contains("\"two\"");
        assertThat(attribute(dead, "dead-letter-reason")).isEqualTo("malformed-wrong-type");
        assertThat(attribute(dead, "dead-letter-error")).contains("phase_pk");
        assertThat(attribute(dead, "receive-count")).isEqualTo("1");
        assertThat(attribute(dead, QueuePublisher.TYPE_ATTRIBUTE)).isEqualTo("announcement");
        // The copy is sent first, then the original deleted and the dead letter counted: awaited, not raced.
        await().atMost(ElasticMq.PATIENCE).untilAsserted(() -> {
            assertThat(visibleAndInFlight()).isZero();
            assertThat(registry.counter("leaderboard.queue.dead.lettered", "queue", "submissions", "reason",
                    "malformed-wrong-type").count()).isEqualTo(1.0);
        });
    }

    @Test
    void aSlowDeadLetterCopyKeepsItsMessageInvisibleSoItIsCopiedOnce() {
        var faulty = new FaultySqs(stack.sqs());
        faulty.slowSends(Duration.ofSeconds(3));
        var handled = new AtomicInteger();
        consumer = new QueueConsumer(faulty.client(), queue, message -> {
            handled.incrementAndGet();
            throw new RejectedMessageException("unknown-leaderboard", "leaderboard 'x' is unknown");
        }, fast(), registry);
        consumer.start();
        send("slow copy");

        // The copy takes longer than the 2 s visibility: the heartbeat goes on until it is sent, or the message
        // comes back meanwhile and is dead-lettered a second time.
        await().atMost(ElasticMq.PATIENCE).untilAsserted(() -> {
            assertThat(visibleAndInFlight()).isZero();
            assertThat(registry.counter("leaderboard.queue.dead.lettered", "queue", "submissions", "reason",
                    "unknown-leaderboard").count()).isEqualTo(1.0);
        });
        assertThat(deadLetters()).hasSize(1);
        assertThat(handled.get()).isEqualTo(1);
    }

    @Test
    void aHostileValueInTheErrorIsEscapedAndStillDeadLettered() {
        // SQS refuses NUL, lone surrogates and U+FFFE in an attribute: sent raw, the dead-letter copy would fail.
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            throw new RejectedMessageException("unknown-leaderboard", "leaderboard 'a\u0000b\uFFFE\uD800c' is unknown");
        }, fast(), registry);
        consumer.start();
        send("hostile");
        await().atMost(ElasticMq.PATIENCE).until(() -> !deadLettersPeek().isEmpty());
        Message dead = deadLetters().get(0);
        assertThat(attribute(dead, "dead-letter-error")).isEqualTo("leaderboard 'a\\u0000b\\ufffe\\ud800c' is unknown");
        await().atMost(ElasticMq.PATIENCE).until(() -> visibleAndInFlight() == 0);
    }

    @Test
    void aPassingFailureIsNeverDeadLetteredHoweverOftenItComesBack() {
        var attempts = new AtomicInteger();
        Set<String> done = ConcurrentHashMap.newKeySet();
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            // More receives than the consumer used to allow (5) before it dead-lettered.
            if (attempts.incrementAndGet() <= 8) {
                throw new IllegalStateException("EvalAI answered 503");
            }
            done.add(message.body());
        }, fast(), registry);
        consumer.start();
        send("once");
        await().atMost(ElasticMq.PATIENCE).until(() -> done.contains("once"));
        assertThat(attempts.get()).isEqualTo(9);
        assertThat(deadLettersPeek()).isEmpty();
        // Each try is timed once it is over: the eighth's visibility change, then its timer, can come after the
        // ninth try's handler already ran (the message is visible again after 2 s whatever the change does), so the
        // count is awaited. ElasticMQ once never answered such a change: the call's bound (1 s here) ends it then.
        await().atMost(ElasticMq.PATIENCE).untilAsserted(() -> assertThat(registry.timer(
                "leaderboard.queue.handling", "queue", "submissions", "outcome", "retry").count()).isEqualTo(8));
        await().atMost(ElasticMq.PATIENCE).until(() -> visibleAndInFlight() == 0);
    }

    @Test
    void aVisibilityChangeWhoseAnswerNeverComesFreesItsHandler() throws Exception {
        try (var proxy = new UnansweredCalls(stack.endpoints().get("sqs"), "ChangeMessageVisibility");
                SqsClient sqs = AwsClients.client(SqsClient.builder(), proxy.endpoint(), stack.credentials(),
                        stack.region())) {
            var attempts = new AtomicInteger();
            Set<String> done = ConcurrentHashMap.newKeySet();
            consumer = new QueueConsumer(sqs, queue, message -> {
                if (attempts.incrementAndGet() == 1) {
                    throw new IllegalStateException("DynamoDB unreachable");
                }
                done.add(message.body());
            }, fast().withMaxInFlight(1), registry);
            consumer.start();
            send("held");

            // The retry's visibility change is taken and never answered: bounded at half the 2 s visibility, the try
            // ends and is timed, and the one handler slot is free for the message when it comes back (without the
            // bound the slot stays taken and the message is never handled again).
            await().atMost(ElasticMq.PATIENCE).untilAsserted(() -> assertThat(registry.timer(
                    "leaderboard.queue.handling", "queue", "submissions", "outcome", "retry").count()).isEqualTo(1));
            assertThat(proxy.held()).isEqualTo(1);
            await().atMost(ElasticMq.PATIENCE).until(() -> done.contains("held"));
            assertThat(attempts.get()).isEqualTo(2);
            consumer.close();
        }
    }

    @Test
    void aFailedMessageWaitsItsBackOffBeforeItIsTriedAgain() {
        var attempts = new AtomicInteger();
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("DynamoDB unreachable");
            }
        }, fast().withRetryBackoff(Duration.ofSeconds(4), Duration.ofMinutes(15)), registry);
        consumer.start();
        send("later");
        await().atMost(ElasticMq.PATIENCE).until(() -> attempts.get() == 1);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> attempts.get() == 1);
        await().atMost(ElasticMq.PATIENCE).until(() -> attempts.get() == 2);
        await().atMost(ElasticMq.PATIENCE).until(() -> visibleAndInFlight() == 0);
    }

    @Test
    void aMessageThatCameEarlyWaitsItsBackOffAndIsHandledOnceWhatItFollowsIsThere() {
        var attempts = new AtomicInteger();
        var startRecorded = new java.util.concurrent.atomic.AtomicBoolean();
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            attempts.incrementAndGet();
            if (!startRecorded.get()) {
                throw new ArrivedEarlyException("run 1 is PENDING: its start is not recorded yet");
            }
        }, fast().withRetryBackoff(Duration.ofSeconds(2), Duration.ofSeconds(2)), registry);
        consumer.start();
        send("progress of run 1");
        await().atMost(ElasticMq.PATIENCE).until(() -> attempts.get() >= 2);
        assertThat(visibleAndInFlight()).as("it waits on the queue").isEqualTo(1);

        startRecorded.set(true);

        await().atMost(ElasticMq.PATIENCE).until(() -> visibleAndInFlight() == 0);
        assertThat(deadLetters()).isEmpty();
        assertThat(registry.find("leaderboard.queue.handling").tag("outcome", "early").timer().count())
                .isEqualTo(attempts.get() - 1L);
    }

    @Test
    void aSlowHandlerKeepsItsMessageInvisible() {
        var calls = new AtomicInteger();
        var release = new CountDownLatch(1);
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            calls.incrementAndGet();
            release.await(20, TimeUnit.SECONDS);
        }, fast(), registry);
        consumer.start();
        send("slow");
        await().atMost(ElasticMq.PATIENCE).until(() -> calls.get() == 1);
        // Three visibility timeouts pass while the handler works: without the heartbeat SQS would hand it out again.
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8)).until(() -> calls.get() == 1);
        release.countDown();
        await().atMost(ElasticMq.PATIENCE).until(() -> visibleAndInFlight() == 0);
        assertThat(calls.get()).isEqualTo(1);
    }

    @Test
    void inFlightIsBounded() {
        var concurrent = new AtomicInteger();
        var peak = new AtomicInteger();
        var handled = new AtomicInteger();
        var release = new CountDownLatch(1);
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            peak.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
            release.await(30, TimeUnit.SECONDS);
            concurrent.decrementAndGet();
            handled.incrementAndGet();
        }, fast().withMaxInFlight(3), registry);
        consumer.start();
        for (int i = 0; i < 12; i++) {
            send("m" + i);
        }
        await().atMost(ElasticMq.PATIENCE).until(() -> concurrent.get() == 3);
        // Nine more wait on the queue and none is taken while the three are in hand.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> concurrent.get() == 3);
        assertThat(consumer.inFlight()).isEqualTo(3);
        release.countDown();
        await().atMost(ElasticMq.PATIENCE).until(() -> handled.get() == 12);
        assertThat(peak.get()).isEqualTo(3);
    }

    List<Message> deadLettersPeek() {
        return stack.sqs().receiveMessage(r -> r.queueUrl(queue.deadLetterUrl()).maxNumberOfMessages(10)
                .waitTimeSeconds(0).visibilityTimeout(0)).messages();
    }

    static String attribute(Message message, String name) {
        MessageAttributeValue value = message.messageAttributes().get(name);
        return value == null ? null : value.stringValue();
    }
}
