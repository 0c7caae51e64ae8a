package org.carla.leaderboard.relay.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What EvalAI shows of an evaluation: the results list as a JSON string, the participant's stdout and stderr, and the
 * merged checkpoint as metadata.
 */
public record Evaluation(String result, String stdout, String stderr, JsonNode metadata) {
}
