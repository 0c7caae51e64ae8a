package org.carla.leaderboard.localstack;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The AWS credentials of one local stack: a fixed access key id and a secret drawn at random for each stack, so no
 * secret lives in the code and a client configured for another stack is refused by S3Proxy.
 */
public record StackCredentials(String accessKeyId, String secretAccessKey) {

    /** Letters and digits only: DynamoDB Local 2.x refuses any other access key id. */
    public static final String ACCESS_KEY_ID = "localstack";

    private static final SecureRandom RANDOM = new SecureRandom();

    public static StackCredentials random() {
        var secret = new byte[20];
        RANDOM.nextBytes(secret);
        return new StackCredentials(ACCESS_KEY_ID, HexFormat.of().formatHex(secret));
    }

    @Override
    public String toString() {
        return "StackCredentials[accessKeyId=" + accessKeyId + ", secretAccessKey=<hidden>]";
    }
}
