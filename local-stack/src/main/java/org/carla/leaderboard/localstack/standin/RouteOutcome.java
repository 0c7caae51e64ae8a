package org.carla.leaderboard.localstack.standin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import org.carla.leaderboard.domain.results.Infraction;
import org.carla.leaderboard.domain.results.PythonFloat;
import org.carla.leaderboard.domain.results.RouteRecord;

/**
 * The result of "driving" one route, drawn from a seed per submission and route so two runs agree: infractions with
 * the Leaderboard's messages, scores with its penalties ({@code statistics_manager.py}: 0.5 pedestrian, 0.6 vehicle,
 * 0.65 layout, 0.7 red light, 0.8 stop sign, 0.7 scenario timeout and yield; off-road and minimum speed by
 * percentage), and the route's status.
 */
public final class RouteOutcome {

    private RouteOutcome() {
    }

    /** A finished route's record, as {@code compute_route_statistics} fills it. */
    public static RouteRecord drive(String seed, String routeId, int index) {
        SplittableRandom random = new SplittableRandom(mix(seed + "/" + routeId));
        Map<String, List<String>> infractions = new LinkedHashMap<>();
        for (Infraction infraction : Infraction.values()) {
            infractions.put(infraction.key(), new ArrayList<>());
        }
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
        Map<String, List<String>> messages = new LinkedHashMap<>();
        infractions.forEach((key, list) -> messages.put(key, List.copyOf(list)));
        return new RouteRecord(index, routeId, status, count, messages,
                new RouteRecord.Scores(round(scoreRoute, 6), round(penalty, 6), round(Math.max(scoreRoute * penalty, 0.0), 6)),
                new RouteRecord.Meta(routeLength, durationGame, durationSystem));
    }

    /** A route that ended without driving (crash, invalid sensors): {@code Failed - <message>}, no route completed. */
    public static RouteRecord failed(String routeId, int index, String message) {
        return new RouteRecord(index, routeId, "Failed - " + message, 0, RouteRecord.emptyInfractions(),
                new RouteRecord.Scores(0.0, 1.0, 0.0), new RouteRecord.Meta(0.0, 0.0, 0.0));
    }

    /** The in-progress record of {@code create_route_data}: index -1, status Started (kept out of the file). */
    public static RouteRecord started(String routeId) {
        return new RouteRecord(-1, routeId, RouteRecord.STARTED, 0, RouteRecord.emptyInfractions(),
                new RouteRecord.Scores(0, 0, 0), new RouteRecord.Meta(0, 0, 0));
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

    static double round(double value, int digits) {
        return PythonFloat.round(value, digits);
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
