package org.carla.leaderboard.cli;

import com.fasterxml.jackson.databind.JsonNode;

/** One line for what an action did: {@code done} or {@code done already}, then the console's message. */
final class ActionOutput {

    private ActionOutput() {
    }

    static void print(JsonNode result) {
        String outcome = "done-already".equals(Text.field(result, "outcome")) ? "done already" : "done";
        System.out.println(Text.field(result, "target") + ": " + outcome + ": " + Text.field(result, "message"));
    }
}
