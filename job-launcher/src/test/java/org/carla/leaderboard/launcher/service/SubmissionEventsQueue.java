package org.carla.leaderboard.launcher.service;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.messaging.QueuesConfig;

import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The submission-events queue as results-relay sees it: every event received is kept (tests filter by submission),
 * so tests that run one after the other never steal each other's events.
 */
final class SubmissionEventsQueue {

    private static final List<SubmissionEvent> RECEIVED = new CopyOnWriteArrayList<>();

    private final RunningStack stack;

    SubmissionEventsQueue(RunningStack stack) {
        this.stack = stack;
    }

    /**
     * Waits until the events of this submission satisfy the condition; returns them. A minute: a run the Job runner
     * fails waits out the kubelet's restart back-off (10 s, doubling) first.
     */
    List<SubmissionEvent> awaitEvents(long submissionPk, Predicate<List<SubmissionEvent>> condition) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            drain();
            return condition.test(of(submissionPk));
        });
        return of(submissionPk);
    }

    /** The events of this submission received until now (after one more short receive). */
    List<SubmissionEvent> eventsNow(long submissionPk) {
        drain();
        return of(submissionPk);
    }

    private List<SubmissionEvent> of(long submissionPk) {
        return RECEIVED.stream().filter(event -> event.submission().submissionPk() == submissionPk).toList();
    }

    private void drain() {
        String url = stack.queueUrl(QueuesConfig.SUBMISSION_EVENTS);
        List<Message> messages;
        do {
            messages = stack.sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(0))
                    .messages();
            for (Message message : messages) {
                RECEIVED.add(EventCodec.parseSubmissionEvent(message.body()));
                stack.sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(message.receiptHandle()));
            }
        } while (!messages.isEmpty());
    }
}
