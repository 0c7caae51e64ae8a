package org.carla.leaderboard.ingest.service;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.messaging.QueuesConfig;

import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Publishes the intake's decisions: a launch request for job-launcher, or a not-launched event for results-relay. A
 * failed send throws, so the announcement stays on its queue and is handled again.
 */
@ApplicationScoped
public class EventPublisher {

    private final SqsClient sqs;
    private final String launchRequests;
    private final String submissionEvents;

    EventPublisher(SqsClient sqs, QueuesConfig queues) {
        this.sqs = sqs;
        this.launchRequests = queues.binding(QueuesConfig.LAUNCH_REQUESTS).url();
        this.submissionEvents = queues.binding(QueuesConfig.SUBMISSION_EVENTS).url();
    }

    public void launch(LaunchRequest request) {
        sqs.sendMessage(r -> r.queueUrl(launchRequests).messageBody(EventCodec.write(request)));
    }

    public void notLaunched(NotLaunched event) {
        sqs.sendMessage(r -> r.queueUrl(submissionEvents).messageBody(EventCodec.write(event)));
    }
}
