package org.carla.leaderboard.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

class QueueConsumerTests {

    static RunningStack stack;
    static QueueBinding queue;

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    QueueConsumer consumer;

    @BeforeAll
    static void startStack() {
        stack = LocalStack.builder().components("sqs").start();
        queue = new QueueBinding(QueuesConfig.SUBMISSIONS, stack.queueUrl(QueuesConfig.SUBMISSIONS),
                stack.deadLetterQueueUrl(QueuesConfig.SUBMISSIONS));
    }

    @AfterAll
    static void stopStack() {
        stack.close();
    }

    @BeforeEach
    void purge() {
        stack.sqs().purgeQueue(r -> r.queueUrl(queue.url()));
        stack.sqs().purgeQueue(r -> r.queueUrl(queue.deadLetterUrl()));
    }

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
        await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 25);
        await().atMost(Duration.ofSeconds(10)).until(() -> visibleAndInFlight() == 0);
        assertThat(deadLetters()).isEmpty();
    }

    @Test
    void aMalformedEventIsDeadLetteredAtOnceWithItsReason() {
        consumer = new QueueConsumer(stack.sqs(), queue, message -> EventCodec.parseAnnouncement(message.body()),
                fast(), registry);
        consumer.start();
        send("{\"challenge_pk\": 1, \"phase_pk\": \"two\", \"submission_pk\": 3}");
        await().atMost(Duration.ofSeconds(20)).until(() -> !deadLettersPeek().isEmpty());
        Message dead = deadLetters().get(0);
        assertThat(dead.body()).contains("\"two\"");
        assertThat(attribute(dead, "dead-letter-reason")).isEqualTo("malformed-wrong-type");
        assertThat(attribute(dead, "dead-letter-error")).contains("phase_pk");
        assertThat(attribute(dead, "receive-count")).isEqualTo("1");
        assertThat(visibleAndInFlight()).isZero();
        assertThat(registry.counter("leaderboard.queue.dead.lettered", "queue", "submissions", "reason",
                "malformed-wrong-type").count()).isEqualTo(1.0);
    }

    @Test
    void aPassingFailureIsRetriedThenDeadLetteredWithTheLastError() {
        var attempts = new AtomicInteger();
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("EvalAI answered 503");
        }, fast(), registry);
        consumer.start();
        send("{\"submission_pk\": 7}");
        await().atMost(Duration.ofSeconds(40)).until(() -> !deadLettersPeek().isEmpty());
        Message dead = deadLetters().get(0);
        assertThat(attempts.get()).isEqualTo(5);
        assertThat(attribute(dead, "dead-letter-reason")).isEqualTo("retries-exhausted");
        assertThat(attribute(dead, "dead-letter-error")).contains("EvalAI answered 503");
    }

    @Test
    void aFailureThatPassesLosesNothing() {
        var attempts = new AtomicInteger();
        Set<String> done = ConcurrentHashMap.newKeySet();
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            if (attempts.incrementAndGet() <= 2) {
                throw new IllegalStateException("not yet");
            }
            done.add(message.body());
        }, fast(), registry);
        consumer.start();
        send("once");
        await().atMost(Duration.ofSeconds(20)).until(() -> done.contains("once"));
        assertThat(attempts.get()).isEqualTo(3);
        assertThat(deadLettersPeek()).isEmpty();
    }

    @Test
    void aSlowHandlerKeepsItsMessageInvisible() throws InterruptedException {
        var calls = new AtomicInteger();
        var release = new CountDownLatch(1);
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            calls.incrementAndGet();
            release.await(20, TimeUnit.SECONDS);
        }, fast(), registry);
        consumer.start();
        send("slow");
        await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() == 1);
        // Three visibility timeouts pass while the handler works: without the heartbeat SQS would hand it out again.
        Thread.sleep(6_000);
        assertThat(calls.get()).isEqualTo(1);
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> visibleAndInFlight() == 0);
        assertThat(calls.get()).isEqualTo(1);
    }

    @Test
    void inFlightIsBounded() {
        var concurrent = new AtomicInteger();
        var peak = new AtomicInteger();
        var handled = new AtomicInteger();
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            peak.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
            Thread.sleep(200);
            concurrent.decrementAndGet();
            handled.incrementAndGet();
        }, fast().withMaxInFlight(3), registry);
        consumer.start();
        for (int i = 0; i < 12; i++) {
            send("m" + i);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> handled.get() == 12);
        assertThat(peak.get()).isBetween(1, 3);
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
