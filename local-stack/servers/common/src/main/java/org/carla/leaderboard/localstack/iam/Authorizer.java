package org.carla.leaderboard.localstack.iam;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * IAM's policy evaluation within one account: the principal's identity-based policies and the resource's
 * resource-based policy (an S3 bucket policy covers the bucket and its objects; an SQS queue policy its queue). An
 * explicit Deny in either wins; otherwise an Allow in either is needed (a resource policy grants alone only when it
 * names the principal itself or anyone, not merely its account). Permissions boundaries, session policies, SCPs and
 * cross-account access are not modelled: no principal of the local stack has them.
 */
public final class Authorizer {

    private final Map<String, Policy> resourcePolicies;

    /** @param resourcePolicies by the ARN of the bucket or queue they are attached to */
    public Authorizer(Map<String, Policy> resourcePolicies) {
        this.resourcePolicies = Map.copyOf(resourcePolicies);
    }

    public Decision decide(Identity who, AccessRequest request) {
        Map<String, List<String>> context = new HashMap<>(request.context());
        context.putAll(who.context());
        Policy resourcePolicy = resourcePolicyOf(request.resource());
        boolean identityAllows = false;
        for (Policy policy : who.policies()) {
            for (Statement statement : policy.statements()) {
                if (statement.applies(request, context)) {
                    if (!statement.allow()) {
                        return Decision.deny(message(who, request, "with an explicit deny in an identity-based policy"));
                    }
                    identityAllows = true;
                }
            }
        }
        boolean resourceAllows = false;
        if (resourcePolicy != null) {
            for (Statement statement : resourcePolicy.statements()) {
                boolean named = statement.names(who);
                if (!named && !statement.namesAccountOf(who) || !statement.applies(request, context)) {
                    continue;
                }
                if (!statement.allow()) {
                    return Decision.deny(message(who, request, "with an explicit deny in a resource-based policy"));
                }
                resourceAllows |= named;
            }
        }
        if (identityAllows || resourceAllows) {
            return Decision.allow();
        }
        return Decision.deny(message(who, request, "because no identity-based policy allows the " + request.action()
                + " action"));
    }

    private Policy resourcePolicyOf(String resource) {
        if (resource.startsWith("arn:aws:s3:::")) {
            String path = resource.substring("arn:aws:s3:::".length());
            int slash = path.indexOf('/');
            return resourcePolicies.get("arn:aws:s3:::" + (slash < 0 ? path : path.substring(0, slash)));
        }
        return resourcePolicies.get(resource);
    }

    private static String message(Identity who, AccessRequest request, String why) {
        return "User: " + who.arn() + " is not authorized to perform: " + request.action() + " on resource: "
                + request.resource() + " " + why;
    }
}
