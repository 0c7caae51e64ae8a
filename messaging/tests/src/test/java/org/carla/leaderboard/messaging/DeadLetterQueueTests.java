package org.carla.leaderboard.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.carla.leaderboard.localstack.RunningStack;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/** An operator lists the dead letters with their reasons and puts chosen ones, or all, back: against ElasticMQ. */
@ExtendWith(ElasticMq.class)
class DeadLetterQueueTests {

    final RunningStack stack = ElasticMq.stack();
    final QueueBinding queue = ElasticMq.emptied(QueuesConfig.SUBMISSION_EVENTS);
    final DeadLetterQueue deadLetters = DeadLetterQueue.of(stack.sqs(), queue);
    final Set<String> handled = ConcurrentHashMap.newKeySet();
    /** Bodies the service refuses (until it is fixed, in some tests). */
    final Set<String> refused = ConcurrentHashMap.newKeySet();
    QueueConsumer consumer;

    @BeforeEach
    void consume() {
        consumer = new QueueConsumer(stack.sqs(), queue, message -> {
            if (refused.contains(message.body())) {
                throw new RejectedMessageException("unknown-leaderboard", "no leaderboard for " + message.body());
            }
            handled.add(message.body());
        }, QueueConsumerTests.fast(), new SimpleMeterRegistry());
        consumer.start();
    }

    @AfterEach
    void stop() {
        consumer.close();
    }

    @Test
    void everyDeadLetterIsListedWithItsReasonAndStaysOnTheQueue() {
        for (int i = 0; i < 25; i++) {
            refuse("event " + i, i % 2 == 0 ? "job-finished" : null);
        }
        // One that SQS's redrive policy moved: no reason attributes.
        send(queue.deadLetterUrl(), "killed its consumer", null);
        awaitDeadLetters(26);

        List<DeadLetter> letters = deadLetters.list(100);

        assertThat(letters).hasSize(26).extracting(DeadLetter::messageId).doesNotHaveDuplicates();
        DeadLetter first = letters.stream().filter(l -> l.body().equals("event 0")).findFirst().orElseThrow();
        assertThat(first.reason()).isEqualTo("unknown-leaderboard");
        assertThat(first.error()).isEqualTo("no leaderboard for event 0");
        assertThat(first.sourceQueue()).isEqualTo(QueuesConfig.SUBMISSION_EVENTS);
        assertThat(first.originalMessageId()).isNotBlank().isNotEqualTo(first.messageId());
        assertThat(first.receiveCount()).isEqualTo(1);
        assertThat(first.type()).isEqualTo("job-finished");
        assertThat(first.attributes()).containsOnlyKeys(QueuePublisher.TYPE_ATTRIBUTE);
        assertThat(first.sentAt()).isNotNull();
        assertThat(letters.stream().filter(l -> l.body().equals("event 1")).findFirst().orElseThrow().type()).isNull();
        DeadLetter killer = letters.stream().filter(l -> l.body().equals("killed its consumer")).findFirst()
                .orElseThrow();
        assertThat(killer.reason()).isEqualTo(DeadLetter.REDRIVE_POLICY);
        assertThat(killer.error()).isNull();

        // Nothing was taken or hidden: an immediate second look sees all of them again.
        assertThat(deadLetters.depth()).isEqualTo(26);
        assertThat(deadLetters.list(100)).extracting(DeadLetter::messageId)
                .containsExactlyInAnyOrderElementsOf(letters.stream().map(DeadLetter::messageId).toList());
        assertThat(deadLetters.list(5)).hasSize(5);
        assertThat(deadLetters.depth()).isEqualTo(26);
    }

    @Test
    void chosenDeadLettersGoBackToTheirQueueAsTheyWereAndAreHandledOnceFixed() {
        refuse("fixed A", "job-finished");
        refuse("fixed B", null);
        refuse("still broken", "progress");
        awaitDeadLetters(3);
        Map<String, String> ids = idsByBody(deadLetters.list(10));
        refused.removeAll(Set.of("fixed A", "fixed B"));

        var move = deadLetters.moveBack(List.of(ids.get("fixed A"), ids.get("fixed B")), "operator <ops@example.org>");

        assertThat(move.moved()).containsExactlyInAnyOrder(ids.get("fixed A"), ids.get("fixed B"));
        assertThat(move.notFound()).isEmpty();
        assertThat(move.notRemoved()).isEmpty();
        assertThat(move.error()).isNull();
        await().atMost(ElasticMq.PATIENCE).until(() -> handled.containsAll(Set.of("fixed A", "fixed B")));
        assertThat(deadLetters.list(10)).extracting(DeadLetter::body).containsExactly("still broken");
    }

    @Test
    void aMovedMessageKeepsItsBodyAndTypeAndLosesTheReason() {
        refuse("{\"version\": 2, \"type\": \"job-finished\"}", "job-finished");
        awaitDeadLetters(1);
        consumer.close();
        String id = deadLetters.list(10).get(0).messageId();

        deadLetters.moveBack(List.of(id), "ops\u0000\nname");

        Message back = stack.sqs().receiveMessage(r -> r.queueUrl(queue.url()).waitTimeSeconds(5)
                .messageAttributeNames("All")).messages().get(0);
        assertThat(back.body()).isEqualTo("{\"version\": 2, \"type\": \"job-finished\"}");
        assertThat(back.messageAttributes()).containsOnlyKeys(QueuePublisher.TYPE_ATTRIBUTE, DeadLetter.MOVED_BACK_BY);
        assertThat(back.messageAttributes().get(QueuePublisher.TYPE_ATTRIBUTE).stringValue()).isEqualTo("job-finished");
        assertThat(back.messageAttributes().get(DeadLetter.MOVED_BACK_BY).stringValue())
                .isEqualTo("ops\\u0000\\u000aname");
    }

    @Test
    void movingTheSameDeadLetterTwiceSendsItOnce() {
        refuse("once", null);
        awaitDeadLetters(1);
        consumer.close();
        String id = deadLetters.list(10).get(0).messageId();

        var first = deadLetters.moveBack(List.of(id), "ops");
        var second = deadLetters.moveBack(List.of(id, "no-such-id"), "ops");

        assertThat(first.moved()).containsExactly(id);
        assertThat(second.moved()).isEmpty();
        assertThat(second.notFound()).containsExactlyInAnyOrder("no-such-id", id);
        var onQueue = stack.sqs().receiveMessage(r -> r.queueUrl(queue.url()).maxNumberOfMessages(10)
                .waitTimeSeconds(2)).messages();
        assertThat(onQueue).extracting(Message::body).containsExactly("once");
        assertThat(deadLetters.depth()).isZero();
    }

    @Test
    void allDeadLettersGoBackAndTheOthersAreLeftUntouchedByAChosenMove() {
        for (int i = 0; i < 15; i++) {
            refuse("event " + i, "progress");
        }
        awaitDeadLetters(15);
        refused.clear();

        var partial = deadLetters.moveBackAll(4, "ops");
        assertThat(partial.moved()).hasSize(4);
        await().atMost(ElasticMq.PATIENCE).until(() -> handled.size() == 4);
        assertThat(deadLetters.list(100)).hasSize(11);

        var rest = deadLetters.moveBackAll(100, "ops");

        assertThat(rest.moved()).hasSize(11).doesNotContainAnyElementsOf(partial.moved());
        await().atMost(ElasticMq.PATIENCE).until(() -> handled.size() == 15);
        assertThat(deadLetters.depth()).isZero();
    }

    /** Sends a message the running consumer refuses: it goes to the dead-letter queue. */
    void refuse(String body, String type) {
        refused.add(body);
        send(queue.url(), body, type);
    }

    void awaitDeadLetters(long count) {
        await().atMost(ElasticMq.PATIENCE).until(() -> deadLetters.depth() == count);
    }

    void send(String url, String body, String type) {
        stack.sqs().sendMessage(r -> {
            r.queueUrl(url).messageBody(body);
            if (type != null) {
                r.messageAttributes(Map.of(QueuePublisher.TYPE_ATTRIBUTE,
                        MessageAttributeValue.builder().dataType("String").stringValue(type).build()));
            }
        });
    }

    static Map<String, String> idsByBody(List<DeadLetter> letters) {
        var ids = new java.util.HashMap<String, String>();
        letters.forEach(letter -> ids.put(letter.body(), letter.messageId()));
        return ids;
    }
}
