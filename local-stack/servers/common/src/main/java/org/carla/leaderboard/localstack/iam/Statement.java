package org.carla.leaderboard.localstack.iam;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One statement of an IAM policy. {@code actions} / {@code resources} are its {@code Action} / {@code Resource}
 * patterns, or its {@code NotAction} / {@code NotResource} ones when {@code notAction} / {@code notResource}.
 * {@code principals} is a resource policy's {@code Principal} (the AWS principals it names, {@code *} for anyone;
 * empty in an identity policy, {@link #otherPrincipals} when it names only non-AWS ones: services, federations).
 */
public record Statement(String sid, boolean allow, List<String> actions, boolean notAction, List<String> resources,
        boolean notResource, List<String> principals, boolean otherPrincipals, List<Condition> conditions) {

    public Statement {
        actions = List.copyOf(actions);
        resources = List.copyOf(resources);
        principals = List.copyOf(principals);
        conditions = List.copyOf(conditions);
    }

    /** A statement as JSON or a resolved template gives it. */
    static Statement of(Map<String, Object> statement) {
        Object effect = statement.get("Effect");
        if (!"Allow".equals(effect) && !"Deny".equals(effect)) {
            throw new IllegalArgumentException("a statement's Effect is Allow or Deny, not " + effect);
        }
        boolean notAction = statement.containsKey("NotAction");
        boolean notResource = statement.containsKey("NotResource");
        List<String> principals = new ArrayList<>();
        boolean otherPrincipals = false;
        if (statement.containsKey("NotPrincipal")) {
            throw new IllegalArgumentException("NotPrincipal is not supported by the local stack's IAM evaluator");
        }
        Object principal = statement.get("Principal");
        if ("*".equals(principal)) {
            principals.add("*");
        } else if (principal instanceof Map<?, ?> kinds) {
            for (var kind : kinds.entrySet()) {
                if ("AWS".equals(kind.getKey())) {
                    principals.addAll(strings(kind.getValue()));
                } else {
                    otherPrincipals = true;
                }
            }
        } else if (principal != null) {
            throw new IllegalArgumentException("a Principal is * or a map, not " + principal);
        }
        var conditions = new ArrayList<Condition>();
        if (statement.get("Condition") instanceof Map<?, ?> operators) {
            for (var operator : operators.entrySet()) {
                if (!(operator.getValue() instanceof Map<?, ?> keys)) {
                    throw new IllegalArgumentException("condition " + operator.getKey() + " holds no keys");
                }
                for (var key : keys.entrySet()) {
                    conditions.add(new Condition(String.valueOf(operator.getKey()), String.valueOf(key.getKey()),
                            strings(key.getValue())));
                }
            }
        }
        return new Statement(statement.get("Sid") == null ? "" : statement.get("Sid").toString(),
                "Allow".equals(effect), strings(statement.get(notAction ? "NotAction" : "Action")), notAction,
                strings(statement.get(notResource ? "NotResource" : "Resource")), notResource, principals,
                otherPrincipals, conditions);
    }

    static List<String> strings(Object value) {
        if (value == null) {
            return List.of();
        }
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        return List.of(String.valueOf(value));
    }

    /** Whether the statement covers the request's action and resource and its conditions hold. */
    boolean applies(AccessRequest request, Map<String, List<String>> context) {
        boolean action = actions.stream().anyMatch(pattern -> Wildcard.matches(pattern, request.action(), true));
        if (action == notAction) {
            return false;
        }
        boolean resource = resources.stream().anyMatch(pattern -> PolicyVariables.resolve(pattern, context)
                .map(resolved -> Wildcard.matches(resolved, request.resource(), false)).orElse(false));
        if (resource == notResource) {
            return false;
        }
        return conditions.stream().allMatch(condition -> condition.holds(context));
    }

    /** Whether a resource policy's statement names the principal (by its ARN, its account, or anyone). */
    boolean names(Identity who) {
        return principals.stream().anyMatch(principal -> principal.equals("*") || principal.equals(who.arn()));
    }

    /** Whether it names the principal's whole account (its root), which grants nothing alone. */
    boolean namesAccountOf(Identity who) {
        return principals.stream().anyMatch(principal -> principal.equals(who.account())
                || principal.equals("arn:aws:iam::" + who.account() + ":root"));
    }

    /** What this evaluator does not understand in the statement. */
    List<String> unsupported() {
        var problems = new ArrayList<String>();
        conditions.forEach(condition -> problems.addAll(condition.unsupported()));
        resources.forEach(resource -> PolicyVariables.unknown(resource).forEach(v -> problems.add("policy variable "
                + v)));
        if (actions.isEmpty() || resources.isEmpty()) {
            problems.add("a statement without " + (actions.isEmpty() ? "Action" : "Resource"));
        }
        return problems;
    }

    /** The statement's name in messages: its Sid, or its first action. */
    String label() {
        return sid.isEmpty() ? Optional.ofNullable(actions.isEmpty() ? null : actions.get(0)).orElse("?") : sid;
    }
}
