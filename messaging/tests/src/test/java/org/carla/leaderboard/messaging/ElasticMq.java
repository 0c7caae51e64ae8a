package org.carla.leaderboard.messaging;

import java.time.Duration;

import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * One ElasticMQ (the local stack's {@code sqs}) for every test class of this module that extends with it, started
 * before the first and stopped when the test run ends. Each class uses its own queue, so none sees another's messages.
 */
final class ElasticMq implements BeforeAllCallback {

    /**
     * How long a test waits for what takes a second or two on an idle machine (a message handled, a poll failed): on a
     * busy one it takes many times that. Never a bound a test asserts; those are written where they are asserted.
     */
    static final Duration PATIENCE = Duration.ofSeconds(60);

    private static volatile RunningStack stack;

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL).getOrComputeIfAbsent(ElasticMq.class,
                key -> {
                    stack = LocalStack.builder().components("sqs").start();
                    return (ExtensionContext.Store.CloseableResource) () -> stack.close();
                }, ExtensionContext.Store.CloseableResource.class);
    }

    static RunningStack stack() {
        return stack;
    }

    static SqsClient sqs() {
        return stack.sqs();
    }

    /** The queue and its dead-letter queue, emptied. */
    static QueueBinding emptied(String queue) {
        var binding = new QueueBinding(queue, stack.queueUrl(queue), stack.deadLetterQueueUrl(queue));
        stack.sqs().purgeQueue(r -> r.queueUrl(binding.url()));
        stack.sqs().purgeQueue(r -> r.queueUrl(binding.deadLetterUrl()));
        return binding;
    }
}
