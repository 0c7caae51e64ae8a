package org.carla.leaderboard.localstack;

import java.security.SecureRandom;

/**
 * The AWS credentials of one principal of one local stack (a service's IAM role, an IAM user, the administrator),
 * drawn at random for each stack: no secret lives in the code, and a client configured for another stack or another
 * principal is refused by the stack's IAM gates, which check every signature.
 */
public record StackCredentials(String accessKeyId, String secretAccessKey) {

    private static final SecureRandom RANDOM = new SecureRandom();
    /** IAM's access key alphabet; letters and digits only, as DynamoDB Local 2.x insists. */
    private static final String KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    private static final String SECRET_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    /** An access key id of IAM's form ({@code AKIA} and 16 characters) and a 40-character secret. */
    public static StackCredentials random() {
        return new StackCredentials("AKIA" + draw(KEY_ALPHABET, 16), draw(SECRET_ALPHABET, 40));
    }

    private static String draw(String alphabet, int length) {
        var out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            out.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return "StackCredentials[accessKeyId=" + accessKeyId + ", secretAccessKey=<hidden>]";
    }
}
