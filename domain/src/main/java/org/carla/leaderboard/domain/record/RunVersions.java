package org.carla.leaderboard.domain.record;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.results.ResultsJson;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The evaluation software a run drove with, as init read it in the Leaderboard image before the pairs started: the
 * Leaderboard checkout's commit (from its {@code .git}, when the image kept one), ScenarioRunner's {@code VERSION}
 * ({@code scenario_runner.py}) and the CARLA PythonAPI's version (the egg or wheel in {@code carla/dist}); and the CARLA
 * server's, as the {@code carla-version} init container read it in the simulator's image ({@code VERSION} of the CARLA
 * package) and left it to init in a volume no participant's container mounts. The simulator's image is in
 * {@link RunImages}, by digest. init writes it as a control object of the submission's prefix
 * ({@code SubmissionLayout.runVersions}), which no file of the logs volume can overwrite; results-relay shows it in the
 * final update's metadata and keeps it in the record ({@link SubmissionTable#RUN_VERSIONS}).
 *
 * @param run            the run whose init read it
 * @param leaderboard    the commit, 40 hex digits
 * @param scenarioRunner e.g. {@code 0.9.13}
 * @param carlaPythonApi e.g. {@code 0.9.15}
 * @param carlaServer    e.g. {@code 0.9.15}
 */
public record RunVersions(int run, Optional<String> leaderboard, Optional<String> scenarioRunner,
        Optional<String> carlaPythonApi, Optional<String> carlaServer) {

    /** A version as it may be kept: a letter or digit, then letters, digits and {@code . _ + -}; 64 at most. */
    public static final Pattern VERSION = Pattern.compile("[0-9A-Za-z][0-9A-Za-z._+-]{0,63}");
    /** The longest control object read: a few short values. */
    public static final int MAX_BYTES = 4096;

    static final String RUN = "run";
    static final String LEADERBOARD = "leaderboard";
    static final String SCENARIO_RUNNER = "scenario_runner";
    static final String CARLA_PYTHON_API = "carla_python_api";
    static final String CARLA_SERVER = "carla_server";

    public RunVersions {
        if (run < 1) {
            throw new IllegalArgumentException("a run is numbered from 1, not " + run);
        }
        for (var value : new Optional<?>[] { leaderboard, scenarioRunner, carlaPythonApi, carlaServer }) {
            if (value.isPresent() && !VERSION.matcher(value.get().toString()).matches()) {
                throw new IllegalArgumentException("not a version: " + value.get());
            }
        }
    }

    /**
     * The values known, by name ({@code leaderboard}, {@code scenario_runner}, {@code carla_python_api},
     * {@code carla_server}), in order.
     */
    public Map<String, String> known() {
        var known = new LinkedHashMap<String, String>();
        leaderboard.ifPresent(value -> known.put(LEADERBOARD, value));
        scenarioRunner.ifPresent(value -> known.put(SCENARIO_RUNNER, value));
        carlaPythonApi.ifPresent(value -> known.put(CARLA_PYTHON_API, value));
        carlaServer.ifPresent(value -> known.put(CARLA_SERVER, value));
        return known;
    }

    /** {@code {"run": 1, "leaderboard": "…", ...}}, the values not known left out. */
    public String json() {
        var fields = new LinkedHashMap<String, Object>();
        fields.put(RUN, run);
        fields.putAll(known());
        try {
            return ResultsJson.mapper().writeValueAsString(fields);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The versions a control object holds; empty when it is not one {@link #json()} wrote (too long, not JSON, a value
     * that is not a version).
     */
    public static Optional<RunVersions> parse(String text) {
        if (text == null || text.length() > MAX_BYTES) {
            return Optional.empty();
        }
        try {
            JsonNode node = ResultsJson.mapper().readTree(text);
            if (node == null || !node.isObject() || !node.path(RUN).canConvertToInt()) {
                return Optional.empty();
            }
            return Optional.of(new RunVersions(node.path(RUN).intValue(), text(node, LEADERBOARD),
                    text(node, SCENARIO_RUNNER), text(node, CARLA_PYTHON_API), text(node, CARLA_SERVER)));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The record's attribute: a map of {@code run} (N) and the values known (S). */
    public AttributeValue attribute() {
        var map = new LinkedHashMap<String, AttributeValue>();
        map.put(RUN, AttributeValue.fromN(Integer.toString(run)));
        known().forEach((name, value) -> map.put(name, AttributeValue.fromS(value)));
        return AttributeValue.fromM(map);
    }

    /** The versions a record's attribute holds; empty when it holds none or is not one {@link #attribute()} wrote. */
    public static Optional<RunVersions> of(AttributeValue attribute) {
        if (attribute == null || !attribute.hasM() || attribute.m().get(RUN) == null
                || attribute.m().get(RUN).n() == null) {
            return Optional.empty();
        }
        Map<String, AttributeValue> map = attribute.m();
        try {
            return Optional.of(new RunVersions(Integer.parseInt(map.get(RUN).n()), text(map, LEADERBOARD),
                    text(map, SCENARIO_RUNNER), text(map, CARLA_PYTHON_API), text(map, CARLA_SERVER)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> text(Map<String, AttributeValue> map, String field) {
        AttributeValue value = map.get(field);
        return value == null || value.s() == null ? Optional.empty() : Optional.of(value.s());
    }

    private static Optional<String> text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.isTextual() ? Optional.of(value.asText()) : Optional.empty();
    }
}
