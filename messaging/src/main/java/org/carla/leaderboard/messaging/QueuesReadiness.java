package org.carla.leaderboard.messaging;

import java.util.LinkedHashMap;
import java.util.List;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Readiness on the queues a service needs to take work (the ones it consumes and the ones it publishes to): each
 * answers a cheap attribute read. Each probe also tells {@link Dependencies#SQS} what it saw.
 */
public final class QueuesReadiness implements HealthCheck {

    /** The check's name. */
    public static final String NAME = "sqs";

    private final SqsClient sqs;
    private final List<QueueBinding> queues;
    private final Dependency dependency;

    public QueuesReadiness(SqsClient sqs, List<QueueBinding> queues, Dependencies dependencies) {
        this.sqs = sqs;
        this.queues = List.copyOf(queues);
        this.dependency = dependencies.get(Dependencies.SQS);
    }

    @Override
    public HealthCheckResponse call() {
        var data = new LinkedHashMap<String, Object>();
        boolean up = true;
        String error = null;
        for (QueueBinding queue : queues) {
            try {
                sqs.getQueueAttributes(r -> r.queueUrl(queue.url()).attributeNames(QueueAttributeName.QUEUE_ARN));
                data.put(queue.name(), true);
            } catch (SdkException e) {
                up = false;
                error = queue.name() + ": " + e.getMessage();
                data.put(queue.name(), false);
            }
        }
        dependency.observed(up, error);
        return HealthResponses.of(NAME, up, data);
    }
}
