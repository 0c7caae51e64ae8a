package org.carla.leaderboard.domain.results;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The global record of a checkpoint, in the Leaderboard 2.0 JSON shape ({@code index} and {@code route_id} are always
 * -1). {@code infractions} maps each {@link Infraction} key to its total per kilometre driven (kilometres for
 * {@code outside_route_lanes}); build one with {@link GlobalStatistics}.
 */
@RegisterForReflection
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({ "index", "route_id", "status", "infractions", "scores_mean", "scores_std_dev", "meta" })
public record GlobalRecord(
        @JsonProperty("index") int index,
        @JsonProperty("route_id") int routeId,
        @JsonProperty("status") String status,
        @JsonProperty("infractions") Map<String, Double> infractions,
        @JsonProperty("scores_mean") Scores scoresMean,
        @JsonProperty("scores_std_dev") Scores scoresStdDev,
        @JsonProperty("meta") Meta meta) {

    public static final String PERFECT = "Perfect";
    public static final String COMPLETED = "Completed";
    public static final String FAILED = "Failed";

    public GlobalRecord {
        infractions = infractions == null ? Map.of() : infractions;
        scoresMean = scoresMean == null ? new Scores(0, 0, 0) : scoresMean;
        scoresStdDev = scoresStdDev == null ? new Scores(0, 0, 0) : scoresStdDev;
        meta = meta == null ? new Meta(0, 0, 0, List.of()) : meta;
    }

    /** One infraction's total; 0 when the record lacks the key. */
    public double infraction(Infraction infraction) {
        Double value = infractions.get(infraction.key());
        return value == null ? 0 : value;
    }

    /** The mean or standard deviation of the route scores (this order is the Leaderboard's). */
    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonPropertyOrder({ "score_composed", "score_route", "score_penalty" })
    public record Scores(
            @JsonProperty("score_composed") double scoreComposed,
            @JsonProperty("score_route") double scoreRoute,
            @JsonProperty("score_penalty") double scorePenalty) {
    }

    /** Plain sums over the routes, and the failed routes. */
    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonPropertyOrder({ "total_length", "duration_game", "duration_system", "exceptions" })
    public record Meta(
            @JsonProperty("total_length") double totalLength,
            @JsonProperty("duration_game") double durationGame,
            @JsonProperty("duration_system") double durationSystem,
            @JsonProperty("exceptions") List<RouteException> exceptions) {

        public Meta {
            exceptions = exceptions == null ? List.of() : exceptions;
        }
    }

    /** A failed route, written as the array {@code [route_id, index, status]}. */
    @RegisterForReflection
    @JsonFormat(shape = JsonFormat.Shape.ARRAY)
    @JsonPropertyOrder({ "route_id", "index", "status" })
    public record RouteException(
            @JsonProperty("route_id") String routeId,
            @JsonProperty("index") int index,
            @JsonProperty("status") String status) {
    }
}
