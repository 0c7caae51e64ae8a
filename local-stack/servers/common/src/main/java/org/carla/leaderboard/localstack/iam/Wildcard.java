package org.carla.leaderboard.localstack.iam;

/**
 * IAM's wildcards in actions, resources and the {@code *Like} conditions: {@code *} any run of characters (none
 * included), {@code ?} exactly one; everything else literal. Actions compare without case, resources and condition
 * values with it.
 */
public final class Wildcard {

    private Wildcard() {
    }

    public static boolean matches(String pattern, String value, boolean ignoreCase) {
        if (ignoreCase) {
            pattern = pattern.toLowerCase(java.util.Locale.ROOT);
            value = value.toLowerCase(java.util.Locale.ROOT);
        }
        int p = 0;
        int v = 0;
        int star = -1;
        int resume = 0;
        while (v < value.length()) {
            if (p < pattern.length() && (pattern.charAt(p) == '?' || same(pattern.charAt(p), value.charAt(v)))) {
                p++;
                v++;
            } else if (p < pattern.length() && pattern.charAt(p) == '*') {
                star = p++;
                resume = v;
            } else if (star >= 0) {
                p = star + 1;
                v = ++resume;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }

    /** A pattern character against a value's: a resolved policy variable's own {@code *} or {@code ?} is literal. */
    private static boolean same(char pattern, char value) {
        return pattern == value || pattern == PolicyVariables.LITERAL_STAR && value == '*'
                || pattern == PolicyVariables.LITERAL_QUESTION && value == '?';
    }
}
