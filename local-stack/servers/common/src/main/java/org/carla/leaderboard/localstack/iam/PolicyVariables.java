package org.carla.leaderboard.localstack.iam;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * IAM's policy variables in a resource or a condition value: {@code ${aws:PrincipalTag/submission-id}},
 * {@code ${aws:username}}, ... replaced from the request's context, and the escapes {@code ${*}}, {@code ${?}},
 * {@code ${$}} (a literal {@code *}, {@code ?}, {@code $}). A variable the request has no value for leaves nothing to
 * match: the statement's resource or value does not apply, as in IAM.
 */
final class PolicyVariables {

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}]*)}");
    /** The variables the gate can resolve: the keys it puts in every request's context. */
    private static final List<String> KNOWN = List.of("aws:username", "aws:PrincipalAccount", "aws:PrincipalArn");
    private static final String TAG = "aws:PrincipalTag/";

    private PolicyVariables() {
    }

    /**
     * The text with every variable replaced, as a pattern whose escaped characters stay literal (marked by
     * {@link #LITERAL_STAR} and {@link #LITERAL_QUESTION}); empty when a variable has no value.
     */
    static Optional<String> resolve(String text, Map<String, List<String>> context) {
        if (!text.contains("${")) {
            return Optional.of(text);
        }
        Matcher matcher = VARIABLE.matcher(text);
        var out = new StringBuilder();
        while (matcher.find()) {
            String name = matcher.group(1);
            String replacement = switch (name) {
                case "*" -> String.valueOf(LITERAL_STAR);
                case "?" -> String.valueOf(LITERAL_QUESTION);
                case "$" -> "$";
                default -> {
                    List<String> values = context.get(name);
                    yield values == null || values.size() != 1 ? null : escape(values.get(0));
                }
            };
            if (replacement == null) {
                return Optional.empty();
            }
            matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        matcher.appendTail(out);
        return Optional.of(out.toString());
    }

    /** A variable's value is data: its own {@code *} and {@code ?} match only themselves. */
    private static String escape(String value) {
        return value.replace('*', LITERAL_STAR).replace('?', LITERAL_QUESTION);
    }

    /** Stand-ins for a literal {@code *} and {@code ?} inside a resolved pattern (private-use characters). */
    static final char LITERAL_STAR = '\uE000';
    static final char LITERAL_QUESTION = '\uE001';

    /** The value with the stand-ins back as the characters they stand for, for an exact comparison. */
    static String literal(String resolved) {
        return resolved.replace(LITERAL_STAR, '*').replace(LITERAL_QUESTION, '?');
    }

    /** Whether the gate can resolve every variable of the text (checked when the policies are loaded). */
    static List<String> unknown(String text) {
        Matcher matcher = VARIABLE.matcher(text);
        var unknown = new java.util.ArrayList<String>();
        while (matcher.find()) {
            String name = matcher.group(1);
            if (!List.of("*", "?", "$").contains(name) && !KNOWN.contains(name) && !name.startsWith(TAG)) {
                unknown.add("${" + name + "}");
            }
        }
        return unknown;
    }
}
