package org.carla.leaderboard.relay.service;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * EvalAI's {@code results.json} as RESULTS.md describes it. Interim: replaced by the domain's results model
 * ({@code org.carla.leaderboard.domain.results}) once that is merged.
 */
final class ResultsFile {

    /** The accuracies' names, in EvalAI's order. */
    static final List<String> ACCURACIES = List.of("Driving score", "Route completion", "Infraction penalty",
            "Collisions pedestrians", "Collisions vehicles", "Collisions layout", "Red light infractions",
            "Stop sign infractions", "Off-road infractions", "Route deviations", "Route timeouts", "Agent blocked",
            "Yield emergency vehicle infractions", "Scenario timeouts", "Min speed infractions");

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ResultsFile() {
    }

    /** {@code Driving score} → {@code driving_score}, {@code Off-road infractions} → {@code off-road_infractions}. */
    static String snakeCase(String accuracy) {
        return accuracy.trim().toLowerCase(Locale.ROOT).replaceAll("\\s+", "_");
    }

    /** The snake-case metrics of a results file; empty when the file is missing or unreadable. */
    static Map<String, Double> metrics(String resultsJson) {
        var metrics = new LinkedHashMap<String, Double>();
        if (resultsJson == null || resultsJson.isBlank()) {
            return metrics;
        }
        try {
            JsonNode root = MAPPER.readTree(resultsJson);
            JsonNode accuracies = root.isArray() && !root.isEmpty() ? root.get(0).get("accuracies") : null;
            if (accuracies != null && accuracies.isObject()) {
                accuracies.fields().forEachRemaining(field -> {
                    if (field.getValue().isNumber()) {
                        metrics.put(snakeCase(field.getKey()), field.getValue().doubleValue());
                    }
                });
            }
        } catch (JsonProcessingException e) {
            return metrics;
        }
        return metrics;
    }

    /** A results file with every accuracy 0, for a submission that produced none. */
    static String empty() {
        ArrayNode list = MAPPER.createArrayNode();
        ObjectNode entry = list.addObject();
        entry.put("split", "leaderboard");
        entry.put("show_to_participant", true);
        ObjectNode accuracies = entry.putObject("accuracies");
        ACCURACIES.forEach(name -> accuracies.put(name, 0.0));
        return list.toString();
    }
}
