package org.carla.leaderboard.domain.results;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Route records and agent checkpoints as the Leaderboard 2.0 evaluator writes them, for the tests. */
final class Routes {

    static final List<String> SENSORS = List.of("carla_camera", "carla_camera", "carla_lidar", "carla_gnss",
            "carla_imu", "carla_speedometer");

    private Routes() {
    }

    static String id(int route, int repetition) {
        return "RouteScenario_" + route + "_rep" + repetition;
    }

    /** A finished route; {@code infractions} alternates keys and messages: "red_light", "Agent ran a red light". */
    static RouteRecord route(int route, int repetition, String status, double scoreRoute, double scorePenalty,
            double length, double game, double system, String... infractions) {
        Map<String, List<String>> messages = new LinkedHashMap<>(RouteRecord.emptyInfractions());
        for (int i = 0; i < infractions.length; i += 2) {
            var list = new ArrayList<>(messages.get(infractions[i]));
            list.add(infractions[i + 1]);
            messages.put(infractions[i], List.copyOf(list));
        }
        int count = messages.values().stream().mapToInt(List::size).sum();
        return new RouteRecord(0, id(route, repetition), status, count, messages,
                new RouteRecord.Scores(scoreRoute, scorePenalty,
                        PythonFloat.round(Math.max(scoreRoute * scorePenalty, 0.0), 6)),
                new RouteRecord.Meta(length, game, system));
    }

    static RouteRecord perfect(int route, int repetition) {
        return route(route, repetition, "Perfect", 100.0, 1.0, 1000.0, 100.0, 200.0);
    }

    /** An agent's checkpoint after {@code records.length} of its {@code total} routes, numbered in its own order. */
    static CheckpointFile agent(int total, RouteRecord... records) {
        var numbered = new ArrayList<RouteRecord>();
        for (RouteRecord record : records) {
            numbered.add(record.withIndex(numbered.size()));
        }
        return CheckpointFile.started(SENSORS, List.of(records.length, total), numbered);
    }

    static String offRoad(double metres) {
        return "Agent went outside its route lanes for about " + metres + " meters (3.13% of the completed route)";
    }

    static List<String> ids(CheckpointFile file) {
        return file.checkpoint().records().stream().map(RouteRecord::routeId).toList();
    }

    static List<Integer> indexes(CheckpointFile file) {
        return file.checkpoint().records().stream().map(RouteRecord::index).toList();
    }

    static List<CheckpointFile> files(CheckpointFile... files) {
        return Arrays.asList(files);
    }
}
