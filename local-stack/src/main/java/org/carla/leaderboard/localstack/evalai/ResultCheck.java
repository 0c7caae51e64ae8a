package org.carla.leaderboard.localstack.evalai;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * EvalAI's checks of a {@code result}: a JSON string holding a list of {@code {split, show_to_participant,
 * accuracies}}; each split must be one of the phase's, each metric one of that split's leaderboard labels, each value a
 * number. A final result must also carry every label (stricter than EvalAI, which shows a missing metric as blank); a
 * partial one may carry a subset, as in a phase with partial evaluation enabled.
 */
final class ResultCheck {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ResultCheck() {
    }

    /** Returns the accuracies of the splits shown to participants; throws {@link EvalAiError} (400) otherwise. */
    static List<Map<String, Object>> check(Object result, Object phase, Map<Long, LeaderboardSchema> phases,
            boolean partial) {
        if (!(result instanceof String text)) {
            throw EvalAiError.badRequest("`result` key contains invalid data with error the JSON object must be str, "
                    + "not " + (result == null ? "NoneType" : result.getClass().getSimpleName())
                    + ". Please try again with correct format.");
        }
        JsonNode results;
        try {
            results = JSON.readTree(text);
        } catch (JacksonException e) {
            throw EvalAiError.badRequest("`result` key contains invalid data with error " + e.getOriginalMessage()
                    + ". Please try again with correct format.");
        }
        if (results == null || !results.isArray()) {
            throw EvalAiError.badRequest("`result` must be a list of {split, show_to_participant, accuracies}");
        }
        LeaderboardSchema schema = phases.get(Submissions.pk(phase));
        List<Map<String, Object>> shown = new ArrayList<>();
        for (JsonNode entry : results) {
            String split = entry.path("split").isTextual() ? entry.path("split").asText() : null;
            List<String> labels = schema == null || split == null ? null : schema.labelsBySplit().get(split);
            if (labels == null) {
                throw EvalAiError.badRequest("Challenge Phase Split does not exist with phase_id: " + phase
                        + " and split codename: " + split);
            }
            JsonNode accuracies = entry.path("accuracies");
            if (!accuracies.isObject()) {
                throw EvalAiError.badRequest("`accuracies` of split " + split + " must be an object");
            }
            List<String> unknown = new ArrayList<>();
            List<String> malformed = new ArrayList<>();
            accuracies.fields().forEachRemaining(field -> {
                if (!labels.contains(field.getKey())) {
                    unknown.add(field.getKey());
                }
                if (!field.getValue().isNumber()) {
                    malformed.add(field.getKey());
                }
            });
            if (!unknown.isEmpty()) {
                throw EvalAiError.badRequest("Following metrics are missing in the leaderboard data: " + unknown
                        + " of challenge phase: " + phase);
            }
            if (!malformed.isEmpty()) {
                throw EvalAiError.badRequest("Values for following metrics are not of float/int: " + malformed);
            }
            List<String> absent = labels.stream().filter(label -> !accuracies.has(label)).toList();
            if (!partial && !absent.isEmpty()) {
                throw EvalAiError.badRequest("Following metrics of the leaderboard are absent from the result: "
                        + absent + " of challenge phase: " + phase);
            }
            if (entry.path("show_to_participant").asBoolean(false)) {
                @SuppressWarnings("unchecked")
                Map<String, Object> values = JSON.convertValue(accuracies, Map.class);
                shown.add(values);
            }
        }
        return shown;
    }
}
