package org.carla.leaderboard.localstack;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One part of the local stack (ElasticMQ, DynamoDB Local, S3Proxy, the EvalAI stand-in, the Kubernetes API server and
 * Job runner). {@link LocalStack} starts the requested parts in dependency order, hands each a {@link StackContext}
 * with what the parts started before it expose, and closes them in reverse order.
 */
public interface StackComponent extends AutoCloseable {

    /** The component's name as {@code LocalStack.builder().components(...)} takes it: {@code sqs}, {@code s3}, ... */
    String name();

    /** Components that must be running before this one starts (e.g. the EvalAI stand-in publishes on {@code sqs}). */
    default Set<String> requires() {
        return Set.of();
    }

    /**
     * Components that, when the stack runs them too, must be running before this one starts (e.g. the Job runner
     * hands the S3 and SQS endpoints to the pods it runs), without being started for it.
     */
    default Set<String> after() {
        return Set.of();
    }

    /**
     * Starts the component and returns once it answers real requests (bounded wait), its resources provisioned.
     * Throws when it cannot; {@link LocalStack} then closes what was started.
     */
    void start(StackContext context) throws Exception;

    /** Where it listens, by name (usually one entry named like the component); empty before start. */
    Map<String, URI> endpoints();

    /** The configuration keys that point a Quarkus service at it, without credentials ({@link #quarkusCredentials}). */
    Map<String, String> quarkusConfig();

    /** The keys that make a Quarkus service's client of it sign with these credentials; none by default. */
    default Map<String, String> quarkusCredentials(StackCredentials credentials) {
        return Map.of();
    }

    /** The operating-system processes it runs (servers, Job pods), so a caller can check none outlives the stack. */
    default List<ProcessHandle> processes() {
        return List.of();
    }

    /** Stops it and everything it started; idempotent, never throws. */
    @Override
    void close();
}
