package org.carla.leaderboard.localstack.standin;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The result of "driving" one route, drawn from a seed per submission and route so two runs agree: infractions with
 * the Leaderboard's messages, scores with its penalties ({@code statistics_manager.py}: 0.5 pedestrian, 0.6 vehicle,
 * 0.65 layout, 0.7 red light, 0.8 stop sign, 0.7 scenario timeout and yield; off-road and minimum speed by
 * percentage), and the route's status.
 */
public final class RouteOutcome {

    /** The infraction keys in the order the Leaderboard writes them. */
    static final List<String> INFRACTIONS = List.of("collisions_layout", "collisions_pedestrian", "collisions_vehicle",
            "red_light", "stop_infraction", "outside_route_lanes", "min_speed_infractions",
            "yield_emergency_vehicle_infractions", "scenario_timeouts", "route_dev", "vehicle_blocked", "route_timeout");

    private RouteOutcome() {
    }

    /** A finished route's record, as {@code compute_route_statistics} fills it. */
    public static ObjectNode drive(String seed, String routeId, int index) {
        SplittableRandom random = new SplittableRandom(mix(seed + "/" + routeId));
        Map<String, List<String>> infractions = new LinkedHashMap<>();
        INFRACTIONS.forEach(key -> infractions.put(key, new ArrayList<>()));
        double routeLength = round(400 + random.nextDouble() * 2600, 3);
        double penalty = 1.0;
        penalty *= events(random, infractions, "collisions_vehicle", 0.25, 0.6,
                "Agent collided against object with type=vehicle.lincoln.mkz_2020 and id=%d at %s");
        penalty *= events(random, infractions, "collisions_layout", 0.15, 0.65,
                "Agent collided against object with type=static.prop.streetbarrier and id=%d at %s");
        penalty *= events(random, infractions, "collisions_pedestrian", 0.05, 0.5,
                "Agent collided against object with type=walker.pedestrian.0012 and id=%d at %s");
        penalty *= events(random, infractions, "red_light", 0.2, 0.7, "Agent ran a red light %d at %s");
        penalty *= events(random, infractions, "stop_infraction", 0.1, 0.8, "Agent ran a stop with id=%d at %s");
        penalty *= events(random, infractions, "yield_emergency_vehicle_infractions", 0.05, 0.7,
                "Agent failed to yield to an emergency vehicle %d at %s");
        penalty *= events(random, infractions, "scenario_timeouts", 0.05, 0.7,
                "Agent timed out a scenario %d at %s");

        String failure = null;
        double scoreRoute = 100.0;
        double roll = random.nextDouble();
        if (roll < 0.08) {
            failure = "Agent timed out";
            infractions.get("route_timeout").add("Route timeout.");
        } else if (roll < 0.14) {
            failure = "Agent got blocked";
            infractions.get("vehicle_blocked").add("Agent got blocked at " + location(random));
        } else if (roll < 0.18) {
            failure = "Agent deviated from the route";
            infractions.get("route_dev").add("Agent deviated from the route at " + location(random));
        }
        if (failure != null) {
            scoreRoute = 5 + random.nextDouble() * 90;
        }
        if (random.nextDouble() < 0.3) {
            double percentage = round(random.nextDouble() * 6, 2);
            double metres = round(routeLength * scoreRoute / 100 * percentage / 100, 3);
            infractions.get("outside_route_lanes").add(String.format(Locale.ROOT,
                    "Agent went outside its route lanes for about %.3f meters (%.2f%% of the completed route)", metres,
                    percentage));
            penalty *= 1 - percentage / 100;
        }
        if (random.nextDouble() < 0.2) {
            double percentage = round(40 + random.nextDouble() * 55, 2);
            infractions.get("min_speed_infractions").add(String.format(Locale.ROOT,
                    "Average agent speed is %.2f%% of the surrounding traffic's one", percentage));
            penalty *= 1 - (1 - 0.7) * (1 - percentage / 100);
        }
        int count = infractions.values().stream().mapToInt(List::size).sum();
        String status = failure != null ? "Failed - " + failure : count > 0 ? "Completed" : "Perfect";
        double durationGame = round(routeLength / (6 + random.nextDouble() * 4), 3);
        double durationSystem = round(durationGame * (1.2 + random.nextDouble() * 2.5), 3);

        ObjectNode record = JsonNodeFactory.instance.objectNode();
        record.put("index", index);
        record.put("route_id", routeId);
        record.put("status", status);
        record.put("num_infractions", count);
        ObjectNode messages = record.putObject("infractions");
        infractions.forEach((key, list) -> list.forEach(messages.withArray(key)::add));
        INFRACTIONS.forEach(key -> {
            if (!messages.has(key)) {
                messages.putArray(key);
            }
        });
        ObjectNode scores = record.putObject("scores");
        scores.put("score_route", round(scoreRoute, 6));
        scores.put("score_penalty", round(penalty, 6));
        scores.put("score_composed", round(Math.max(scoreRoute * penalty, 0.0), 6));
        ObjectNode meta = record.putObject("meta");
        meta.put("route_length", routeLength);
        meta.put("duration_game", durationGame);
        meta.put("duration_system", durationSystem);
        return record;
    }

    /** A route that ended without driving (crash, invalid sensors): {@code Failed - <message>}, zero scores. */
    public static ObjectNode failed(String routeId, int index, String message) {
        ObjectNode record = JsonNodeFactory.instance.objectNode();
        record.put("index", index);
        record.put("route_id", routeId);
        record.put("status", "Failed - " + message);
        record.put("num_infractions", 0);
        ObjectNode messages = record.putObject("infractions");
        INFRACTIONS.forEach(messages::putArray);
        ObjectNode scores = record.putObject("scores");
        scores.put("score_route", 0.0);
        scores.put("score_penalty", 1.0);
        scores.put("score_composed", 0.0);
        ObjectNode meta = record.putObject("meta");
        meta.put("route_length", 0.0);
        meta.put("duration_game", 0.0);
        meta.put("duration_system", 0.0);
        return record;
    }

    /** The in-progress record: index -1, status Started (the evaluator keeps it out of the file). */
    public static ObjectNode started(String routeId) {
        ObjectNode record = failed(routeId, -1, "");
        record.put("status", "Started");
        record.with("scores").put("score_penalty", 0.0);
        return record;
    }

    private static double events(SplittableRandom random, Map<String, List<String>> infractions, String key,
            double probability, double factor, String message) {
        double penalty = 1.0;
        while (random.nextDouble() < probability && infractions.get(key).size() < 3) {
            infractions.get(key).add(String.format(Locale.ROOT, message, 100 + random.nextInt(9000), location(random)));
            penalty *= factor;
        }
        return penalty;
    }

    private static String location(SplittableRandom random) {
        return String.format(Locale.ROOT, "(x=%.1f, y=%.1f, z=%.1f)", random.nextDouble() * 2000 - 1000,
                random.nextDouble() * 2000 - 1000, random.nextDouble() * 2);
    }

    /** Python's {@code round(x, digits)}: half-even on the exact binary value. */
    static double round(double value, int digits) {
        return new BigDecimal(value).setScale(digits, RoundingMode.HALF_EVEN).doubleValue();
    }

    /** A stable 64-bit seed from text (String.hashCode is stable across JVMs, but only 32 bits). */
    static long mix(String text) {
        long h = 1125899906842597L;
        for (int i = 0; i < text.length(); i++) {
            h = 31 * h + text.charAt(i);
        }
        return h;
    }
}
