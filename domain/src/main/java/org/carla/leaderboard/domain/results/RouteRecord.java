package org.carla.leaderboard.domain.results;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One route's record in a checkpoint, in the Leaderboard 2.0 JSON shape. {@code index} is the route's position
 * (renumbered after a merge), {@code route_id} reads like {@code RouteScenario_12_rep0}, {@code infractions} maps each
 * infraction key ({@link Infraction}) to its messages.
 */
@RegisterForReflection
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({ "index", "route_id", "status", "num_infractions", "infractions", "scores", "meta" })
public record RouteRecord(
        @JsonProperty("index") int index,
        @JsonProperty("route_id") String routeId,
        @JsonProperty("status") String status,
        @JsonProperty("num_infractions") int numInfractions,
        @JsonProperty("infractions") Map<String, List<String>> infractions,
        @JsonProperty("scores") Scores scores,
        @JsonProperty("meta") Meta meta) {

    /** The status of a route still being driven (and of a record the evaluator could not finish). */
    public static final String STARTED = "Started";

    public RouteRecord {
        status = status == null ? STARTED : status;
        infractions = infractions == null ? emptyInfractions() : infractions;
        scores = scores == null ? new Scores(0, 0, 0) : scores;
        meta = meta == null ? new Meta(0, 0, 0) : meta;
    }

    /** The same record at another position. */
    public RouteRecord withIndex(int newIndex) {
        return new RouteRecord(newIndex, routeId, status, numInfractions, infractions, scores, meta);
    }

    /** The messages of one infraction; none when the record lacks the key. */
    public List<String> messages(Infraction infraction) {
        List<String> messages = infractions.get(infraction.key());
        return messages == null ? List.of() : messages;
    }

    /** Every infraction key with no message, in the Leaderboard's order. */
    public static Map<String, List<String>> emptyInfractions() {
        var empty = new LinkedHashMap<String, List<String>>();
        for (Infraction infraction : Infraction.values()) {
            empty.put(infraction.key(), List.of());
        }
        return empty;
    }

    /** The route's scores: completion 0..100, penalty 0..1, composed (driving score) 0..100. */
    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonPropertyOrder({ "score_route", "score_penalty", "score_composed" })
    public record Scores(
            @JsonProperty("score_route") double scoreRoute,
            @JsonProperty("score_penalty") double scorePenalty,
            @JsonProperty("score_composed") double scoreComposed) {
    }

    /** Route length in metres, game and system durations in seconds. */
    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonPropertyOrder({ "route_length", "duration_game", "duration_system" })
    public record Meta(
            @JsonProperty("route_length") double routeLength,
            @JsonProperty("duration_game") double durationGame,
            @JsonProperty("duration_system") double durationSystem) {
    }
}
