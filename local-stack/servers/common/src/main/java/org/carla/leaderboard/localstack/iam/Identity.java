package org.carla.leaderboard.localstack.iam;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A principal that signs requests: an IAM role (a service's IRSA session), an IAM user, or the administrator. Its
 * {@code name} goes into the decisions log; {@code arn} is what a resource policy's {@code Principal} names;
 * {@code tags} are its principal tags ({@code aws:PrincipalTag/...}); {@code policies} its identity-based policies.
 */
public record Identity(String name, String arn, String account, Map<String, String> tags, List<Policy> policies) {

    public Identity {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arn, "arn");
        Objects.requireNonNull(account, "account");
        tags = Map.copyOf(tags);
        policies = List.copyOf(policies);
    }

    /** The condition keys IAM sets from the principal itself. */
    Map<String, List<String>> context() {
        var context = new java.util.HashMap<String, List<String>>();
        context.put("aws:PrincipalArn", List.of(arn));
        context.put("aws:PrincipalAccount", List.of(account));
        tags.forEach((key, value) -> context.put("aws:PrincipalTag/" + key, List.of(value)));
        if (arn.contains(":user/")) {
            context.put("aws:username", List.of(arn.substring(arn.lastIndexOf('/') + 1)));
        }
        return context;
    }
}
