package org.carla.leaderboard.localstack.iam;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One condition of a statement: an operator ({@code StringLike}, {@code ForAllValues:StringEquals},
 * {@code BoolIfExists}, ...), a condition key and its values. It holds when the request's values of the key match, by
 * IAM's rules: several values of the condition are alternatives; a key the request lacks fails the condition, except
 * for {@code ...IfExists}, the negated operators, {@code ForAllValues} and {@code Null}.
 */
public record Condition(String operator, String key, List<String> values) {

    /** The operators this evaluator knows (without {@code IfExists} and the set qualifiers). */
    static final Set<String> OPERATORS = Set.of("StringEquals", "StringNotEquals", "StringEqualsIgnoreCase",
            "StringNotEqualsIgnoreCase", "StringLike", "StringNotLike", "Bool", "ArnEquals", "ArnLike", "ArnNotEquals",
            "ArnNotLike", "Null", "NumericEquals", "NumericNotEquals", "NumericLessThan", "NumericLessThanEquals",
            "NumericGreaterThan", "NumericGreaterThanEquals");

    /**
     * The condition keys the gate puts in a request's context: the global keys it knows and the S3 list keys. A policy
     * with any other key is refused when it is loaded.
     */
    static final Set<String> KEYS = Set.of("aws:SecureTransport", "aws:PrincipalArn", "aws:PrincipalAccount",
            "aws:username", "aws:ResourceAccount", "s3:prefix", "s3:delimiter", "s3:max-keys");
    static final String PRINCIPAL_TAG = "aws:PrincipalTag/";

    public Condition {
        values = List.copyOf(values);
    }

    /** What this evaluator does not understand in the condition; empty when it can evaluate it. */
    List<String> unsupported() {
        var problems = new ArrayList<String>();
        if (!OPERATORS.contains(base())) {
            problems.add("condition operator " + operator);
        }
        if (!KEYS.contains(key) && !key.startsWith(PRINCIPAL_TAG)) {
            problems.add("condition key " + key);
        }
        values.forEach(value -> PolicyVariables.unknown(value).forEach(v -> problems.add("policy variable " + v)));
        return problems;
    }

    boolean holds(Map<String, List<String>> context) {
        String base = base();
        List<String> present = context.get(key);
        if (base.equals("Null")) {
            boolean absent = present == null || present.isEmpty();
            return values.stream().anyMatch(value -> Boolean.parseBoolean(value) == absent);
        }
        boolean negated = base.contains("Not");
        if (present == null || present.isEmpty()) {
            return operator.endsWith("IfExists") || operator.startsWith("ForAllValues:")
                    || negated && !operator.startsWith("ForAnyValue:");
        }
        List<String> wanted = new ArrayList<>();
        for (String value : values) {
            PolicyVariables.resolve(value, context).ifPresent(wanted::add);
        }
        String positive = negated ? base.replace("Not", "") : base;
        java.util.function.Predicate<String> matchesOne = actual -> {
            boolean any = wanted.stream().anyMatch(value -> matches(positive, actual, value));
            return negated != any;
        };
        if (operator.startsWith("ForAllValues:")) {
            return present.stream().allMatch(matchesOne);
        }
        if (operator.startsWith("ForAnyValue:")) {
            return present.stream().anyMatch(matchesOne);
        }
        return negated ? present.stream().allMatch(matchesOne) : present.stream().anyMatch(matchesOne);
    }

    private String base() {
        String base = operator;
        if (base.startsWith("ForAllValues:")) {
            base = base.substring("ForAllValues:".length());
        } else if (base.startsWith("ForAnyValue:")) {
            base = base.substring("ForAnyValue:".length());
        }
        return base.endsWith("IfExists") ? base.substring(0, base.length() - "IfExists".length()) : base;
    }

    private static boolean matches(String operator, String actual, String wanted) {
        return switch (operator) {
            case "StringEquals" -> actual.equals(PolicyVariables.literal(wanted));
            case "StringEqualsIgnoreCase" -> actual.equalsIgnoreCase(PolicyVariables.literal(wanted));
            case "StringLike", "ArnLike", "ArnEquals" -> Wildcard.matches(wanted, actual, false);
            case "Bool" -> actual.toLowerCase(Locale.ROOT).equals(wanted.toLowerCase(Locale.ROOT));
            default -> numeric(operator, actual, wanted);
        };
    }

    private static boolean numeric(String operator, String actual, String wanted) {
        int order;
        try {
            order = new BigDecimal(actual).compareTo(new BigDecimal(wanted));
        } catch (NumberFormatException e) {
            return false;
        }
        return switch (operator) {
            case "NumericEquals" -> order == 0;
            case "NumericLessThan" -> order < 0;
            case "NumericLessThanEquals" -> order <= 0;
            case "NumericGreaterThan" -> order > 0;
            case "NumericGreaterThanEquals" -> order >= 0;
            default -> throw new IllegalStateException("not an operator: " + operator);
        };
    }
}
