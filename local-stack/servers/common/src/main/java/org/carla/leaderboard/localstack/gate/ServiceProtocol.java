package org.carla.leaderboard.localstack.gate;

import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.localstack.iam.AccessRequest;
import org.carla.leaderboard.localstack.iam.Decision;

/**
 * How one AWS service's requests read to IAM: the action and resource ARN each HTTP request asks for, and how the
 * service refuses one (its own error shape, so the SDK raises the exception it would raise against AWS).
 */
interface ServiceProtocol {

    /** The service name a SigV4 signature's scope carries ({@code sqs}, {@code dynamodb}, {@code s3}, {@code monitoring}). */
    String signingName();

    /** Whether the body must be read before deciding: its hash is signed, or what it asks is in it. */
    boolean readsBody(HttpHead head);

    /**
     * What the request asks IAM for, one entry per action and resource it needs; {@link IllegalArgumentException} when
     * it cannot be read. {@code body} is empty unless {@link #readsBody}.
     */
    List<AccessRequest> accesses(HttpHead head, byte[] body, Account account);

    /** The service's answer to a refused request. */
    Response refusal(HttpHead head, Refusal refusal, String message);

    /**
     * An answer of the gate's own when only some of the request's accesses are allowed and the service answers that
     * way (S3's DeleteObjects: a result per key); empty when a refusal of any access refuses the whole request.
     */
    default Optional<Response> partly(HttpHead head, byte[] body, List<AccessRequest> accesses,
            List<Decision> decisions, Backend backend) {
        return Optional.empty();
    }

    /** Where the request's ARNs live. */
    record Account(String region, String id) {
    }

    /** The server behind the gate, for an answer the gate composes from several of its requests. */
    interface Backend {
        /** Sends one request (already authorized) and returns its status. */
        int send(HttpHead head, byte[] body) throws java.io.IOException;
    }
}
