package org.carla.leaderboard.launcher.client;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.messaging.QueuePublisher;
import org.carla.leaderboard.messaging.QueuesConfig;

import software.amazon.awssdk.services.sqs.SqsClient;

/** Publishes the launcher's lifecycle events (job-started, job-finished) on {@code submission-events}. */
@ApplicationScoped
public class SubmissionEvents {

    private final QueuePublisher queue;

    SubmissionEvents(SqsClient sqs, QueuesConfig queues) {
        this.queue = QueuePublisher.to(sqs, queues.binding(QueuesConfig.SUBMISSION_EVENTS).url());
    }

    /** Sends the event; an SDK exception means it was not sent and the caller must try again. */
    public void publish(SubmissionEvent event) {
        queue.publish(event);
    }
}
