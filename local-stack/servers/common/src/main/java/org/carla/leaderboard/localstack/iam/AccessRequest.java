package org.carla.leaderboard.localstack.iam;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One action on one resource, as IAM authorizes it: {@code s3:GetObject} on {@code arn:aws:s3:::bucket/key}, with the
 * request's condition keys ({@code s3:prefix}, {@code aws:SecureTransport}, ...; each may hold several values).
 */
public record AccessRequest(String action, String resource, Map<String, List<String>> context) {

    public AccessRequest {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(resource, "resource");
        context = Map.copyOf(context);
    }

    public static AccessRequest of(String action, String resource) {
        return new AccessRequest(action, resource, Map.of());
    }

    /** The same request with one more condition key. */
    public AccessRequest with(String key, String value) {
        var copy = new java.util.HashMap<>(context);
        copy.put(key, List.of(value));
        return new AccessRequest(action, resource, copy);
    }
}
