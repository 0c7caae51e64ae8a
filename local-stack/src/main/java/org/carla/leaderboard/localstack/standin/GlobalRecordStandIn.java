package org.carla.leaderboard.localstack.standin;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The one place where the evaluator stand-in gets its global record (RESULTS.md, "Global statistics"). Temporary: to
 * be replaced by the domain's results statistics, the same code as the merge, once they are on this branch.
 */
final class GlobalRecordStandIn {

    record Result(ObjectNode record, List<String> values, List<String> labels, String entryStatus) {
    }

    static final List<String> LABELS = List.of("Avg. driving score", "Avg. route completion", "Avg. infraction penalty",
            "Collisions with pedestrians", "Collisions with vehicles", "Collisions with layout", "Red lights infractions",
            "Stop sign infractions", "Off-road infractions", "Route deviations", "Route timeouts", "Agent blocked",
            "Yield emergency vehicles infractions", "Scenario timeouts", "Min speed infractions");
    private static final List<String> VALUE_KEYS = List.of("collisions_pedestrian", "collisions_vehicle",
            "collisions_layout", "red_light", "stop_infraction", "outside_route_lanes", "route_dev", "route_timeout",
            "vehicle_blocked", "yield_emergency_vehicle_infractions", "scenario_timeouts", "min_speed_infractions");
    private static final List<String> SCORES = List.of("score_composed", "score_route", "score_penalty");

    private GlobalRecordStandIn() {
    }

    static Result compute(List<ObjectNode> records, int total) {
        Map<String, Double> mean = new LinkedHashMap<>();
        SCORES.forEach(k -> mean.put(k, 0.0));
        double length = 0, game = 0, system = 0, km = 0;
        String status = "Perfect";
        List<List<Object>> exceptions = new ArrayList<>();
        Map<String, Double> infractions = new LinkedHashMap<>();
        RouteOutcome.INFRACTIONS.forEach(k -> infractions.put(k, 0.0));
        for (JsonNode r : records) {
            SCORES.forEach(k -> mean.merge(k, r.path("scores").path(k).asDouble() / total, Double::sum));
            length += r.path("meta").path("route_length").asDouble();
            game += r.path("meta").path("duration_game").asDouble();
            system += r.path("meta").path("duration_system").asDouble();
            String routeStatus = r.path("status").asText();
            if (routeStatus.contains("Failed")) {
                exceptions.add(List.of(r.path("route_id").asText(), r.path("index").asInt(), routeStatus));
                status = "Failed";
            } else if (status.equals("Perfect") && !routeStatus.equals("Perfect")) {
                status = routeStatus;
            }
            km += r.path("meta").path("route_length").asDouble() / 1000 * r.path("scores").path("score_route").asDouble() / 100;
            for (String key : RouteOutcome.INFRACTIONS) {
                JsonNode messages = r.path("infractions").path(key);
                double value = key.equals("outside_route_lanes")
                        ? (messages.size() == 0 ? 0.0 : Double.parseDouble(messages.get(0).asText().split(" ")[8]) / 1000)
                        : messages.size();
                infractions.merge(key, value, Double::sum);
            }
        }
        mean.replaceAll((k, v) -> RouteOutcome.round(v, 6));
        ObjectNode record = JsonNodeFactory.instance.objectNode();
        record.put("index", -1);
        record.put("route_id", -1);
        record.put("status", status);
        ObjectNode totals = record.putObject("infractions");
        double driven = Math.max(km, 0.001);
        infractions.forEach((k, v) -> totals.put(k, RouteOutcome.round(k.equals("outside_route_lanes") ? v : v / driven, 3)));
        ObjectNode means = record.putObject("scores_mean");
        mean.forEach(means::put);
        ObjectNode deviations = record.putObject("scores_std_dev");
        for (String k : SCORES) {
            double sum = 0;
            for (JsonNode r : records) {
                sum += Math.pow(r.path("scores").path(k).asDouble() - mean.get(k), 2);
            }
            deviations.put(k, total == 1 ? 0.0 : RouteOutcome.round(Math.sqrt(sum / (total - 1)), 3));
        }
        ObjectNode meta = record.putObject("meta");
        meta.put("total_length", length);
        meta.put("duration_game", game);
        meta.put("duration_system", system);
        exceptions.forEach(e -> meta.withArray("exceptions").addArray().add((String) e.get(0)).add((Integer) e.get(1))
                .add((String) e.get(2)));
        if (!meta.has("exceptions")) {
            meta.putArray("exceptions");
        }
        List<String> values = new ArrayList<>();
        SCORES.forEach(k -> values.add(pythonString(mean.get(k))));
        VALUE_KEYS.forEach(k -> values.add(pythonString(totals.path(k).asDouble())));
        String entry = "Finished";
        for (JsonNode r : records) {
            String routeStatus = r.path("status").asText();
            if (routeStatus.contains("Simulation crashed")) {
                entry = "Crashed";
            } else if (routeStatus.contains("Agent's sensors were invalid")) {
                entry = "Rejected";
            }
        }
        return new Result(record, values, LABELS, entry);
    }

    private static String pythonString(double value) {
        String plain = new BigDecimal(Double.toString(value)).toPlainString();
        return plain.contains(".") ? plain : plain + ".0";
    }
}
