package org.carla.leaderboard.localstack.iam;

/** IAM's answer to one {@link AccessRequest}: allowed or not, and why, in the words of AWS's AccessDenied messages. */
public record Decision(boolean allowed, String reason) {

    static Decision allow() {
        return new Decision(true, "allowed");
    }

    static Decision deny(String reason) {
        return new Decision(false, reason);
    }
}
