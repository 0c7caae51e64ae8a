package org.carla.leaderboard.ingest.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.ingest.service.SubmissionsConsumer;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** Ready when the queue it reads and the two it publishes to answer. */
@Readiness
@ApplicationScoped
public class QueuesReadiness implements HealthCheck {

    private final SubmissionsConsumer consumer;
    private final SqsClient sqs;
    private final QueuesConfig queues;

    QueuesReadiness(SubmissionsConsumer consumer, SqsClient sqs, QueuesConfig queues) {
        this.consumer = consumer;
        this.sqs = sqs;
        this.queues = queues;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("sqs").up();
        boolean up = consumer.reachable();
        response.withData(QueuesConfig.SUBMISSIONS, up);
        for (String name : new String[] { QueuesConfig.LAUNCH_REQUESTS, QueuesConfig.SUBMISSION_EVENTS }) {
            boolean answers = answers(queues.binding(name).url());
            response.withData(name, answers);
            up &= answers;
        }
        return response.status(up).build();
    }

    private boolean answers(String url) {
        try {
            sqs.getQueueAttributes(r -> r.queueUrl(url).attributeNames(QueueAttributeName.QUEUE_ARN));
            return true;
        } catch (SdkException e) {
            return false;
        }
    }
}
