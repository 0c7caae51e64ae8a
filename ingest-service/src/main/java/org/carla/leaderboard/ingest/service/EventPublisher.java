package org.carla.leaderboard.ingest.service;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.messaging.QueuePublisher;
import org.carla.leaderboard.messaging.QueuesConfig;

import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Where the intake's decisions go: a launch request to job-launcher, a not-launched event to results-relay. A failed
 * send throws, so the announcement stays on its queue and is handled again.
 */
@ApplicationScoped
public class EventPublisher {

    private final QueuePublisher launchRequests;
    private final QueuePublisher submissionEvents;

    EventPublisher(SqsClient sqs, QueuesConfig queues) {
        this.launchRequests = QueuePublisher.to(sqs, queues.binding(QueuesConfig.LAUNCH_REQUESTS).url());
        this.submissionEvents = QueuePublisher.to(sqs, queues.binding(QueuesConfig.SUBMISSION_EVENTS).url());
    }

    public void launch(LaunchRequest request) {
        launchRequests.publish(request);
    }

    public void notLaunched(NotLaunched event) {
        submissionEvents.publish(event);
    }
}
