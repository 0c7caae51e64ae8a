package org.carla.leaderboard.localstack.kubernetes.rbac;

import java.util.List;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;

/**
 * Kubernetes' RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go, {@code RuleAllows}, and the matchers of
 * pkg/apis/rbac/v1/evaluation_helpers.go): a request is allowed when one rule in force for its user in its namespace
 * matches it, and refused otherwise; there is no deny. A rule matches a resource request when it has the verb (or
 * {@code *}), the API group (or {@code *}), the resource — {@code resource/subresource} for a subresource, {@code *},
 * or {@code *}{@code /subresource} — and, when it lists {@code resourceNames}, the request's name: a request without
 * a name (create, list and watch without a {@code metadata.name} field selector, deletecollection) never matches a rule
 * that names its objects. A non-resource request (a path such as {@code /version}) matches a rule's
 * {@code nonResourceURLs}, exactly or by a trailing {@code *}.
 */
public final class RbacAuthorizer {

    /** The outcome: allowed by {@code grant}, or refused with the resolution {@code errors}. */
    public record Decision(boolean allowed, Optional<RbacPolicy.Grant> grant, List<String> errors) {
    }

    private final RbacPolicy policy;

    public RbacAuthorizer(RbacPolicy policy) {
        this.policy = policy;
    }

    public Decision authorize(User user, RequestAttributes request) {
        RbacPolicy.Resolved resolved = policy.rulesFor(user, request.namespace());
        for (RbacPolicy.Applicable applicable : resolved.rules()) {
            if (allows(applicable.rule(), request)) {
                return new Decision(true, Optional.of(applicable.grant()), List.of());
            }
        }
        return new Decision(false, Optional.empty(), resolved.errors());
    }

    static boolean allows(PolicyRule rule, RequestAttributes request) {
        if (request.resourceRequest()) {
            return verbMatches(rule, request.verb()) && groupMatches(rule, request.apiGroup())
                    && resourceMatches(rule, request.combinedResource(), request.subresource())
                    && nameMatches(rule, request.name());
        }
        return verbMatches(rule, request.verb()) && urlMatches(rule, request.path());
    }

    private static boolean verbMatches(PolicyRule rule, String verb) {
        return list(rule.getVerbs()).stream().anyMatch(ruleVerb -> ruleVerb.equals("*") || ruleVerb.equals(verb));
    }

    private static boolean groupMatches(PolicyRule rule, String group) {
        return list(rule.getApiGroups()).stream().anyMatch(ruleGroup -> ruleGroup.equals("*") || ruleGroup.equals(group));
    }

    static boolean resourceMatches(PolicyRule rule, String combined, String subresource) {
        for (String resource : list(rule.getResources())) {
            if (resource.equals("*") || resource.equals(combined)) {
                return true;
            }
            if (!subresource.isEmpty() && resource.equals("*/" + subresource)) {
                return true;
            }
        }
        return false;
    }

    private static boolean nameMatches(PolicyRule rule, String name) {
        List<String> names = list(rule.getResourceNames());
        return names.isEmpty() || names.contains(name);
    }

    private static boolean urlMatches(PolicyRule rule, String path) {
        for (String url : list(rule.getNonResourceURLs())) {
            if (url.equals("*") || url.equals(path)) {
                return true;
            }
            if (url.endsWith("*") && path.startsWith(url.substring(0, url.length() - 1))) {
                return true;
            }
        }
        return false;
    }

    private static List<String> list(List<String> values) {
        return values == null ? List.of() : values;
    }
}
