package org.carla.leaderboard.domain.results;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The global statistics of a set of route records, number for number with the Leaderboard 2.0's
 * {@code StatisticsManager.compute_global_statistics}: the same operations in the same order on doubles (float
 * addition is not associative), Python's {@code round()} and Python's {@code str()} for the values.
 */
public final class GlobalStatistics {

    static final int ROUND_DIGITS = 3;
    static final int ROUND_DIGITS_SCORE = 6;

    private static final String SIMULATION_CRASHED = "Simulation crashed";
    private static final String SENSORS_INVALID = "Agent's sensors were invalid";

    private GlobalStatistics() {
    }

    /**
     * Computes the global record of {@code records} (sorted and numbered) over {@code totalRoutes} routes.
     *
     * @throws IllegalArgumentException when {@code totalRoutes} is not positive, or an {@code outside_route_lanes}
     *         message does not hold its distance where the Leaderboard writes it (a NaN score gives NaN metrics, as
     *         in Python: the evaluator stand-in writes them so; the merge refuses them)
     */
    public static GlobalResults compute(List<RouteRecord> records, int totalRoutes) {
        if (totalRoutes <= 0) {
            throw new IllegalArgumentException("the global statistics need a positive route total, was " + totalRoutes);
        }
        double total = totalRoutes;
        double meanComposed = 0;
        double meanRoute = 0;
        double meanPenalty = 0;
        double totalLength = 0;
        double durationGame = 0;
        double durationSystem = 0;
        String result = GlobalRecord.PERFECT;
        var exceptions = new ArrayList<GlobalRecord.RouteException>();
        for (RouteRecord record : records) {
            meanRoute += record.scores().scoreRoute() / total;
            meanPenalty += record.scores().scorePenalty() / total;
            meanComposed += record.scores().scoreComposed() / total;
            totalLength += record.meta().routeLength();
            durationGame += record.meta().durationGame();
            durationSystem += record.meta().durationSystem();

            // 'Perfect' -> 'Completed' -> 'Failed'; a route status other than these two downgrades 'Perfect' too.
            String routeResult = record.status().contains(GlobalRecord.FAILED) ? GlobalRecord.FAILED : record.status();
            if (routeResult.equals(GlobalRecord.FAILED)) {
                exceptions.add(new GlobalRecord.RouteException(record.routeId(), record.index(), record.status()));
                result = routeResult;
            } else if (result.equals(GlobalRecord.PERFECT) && !routeResult.equals(GlobalRecord.PERFECT)) {
                result = routeResult;
            }
        }
        var mean = new GlobalRecord.Scores(PythonFloat.round(meanComposed, ROUND_DIGITS_SCORE),
                PythonFloat.round(meanRoute, ROUND_DIGITS_SCORE), PythonFloat.round(meanPenalty, ROUND_DIGITS_SCORE));

        GlobalRecord.Scores stdDev;
        if (totalRoutes == 1) {
            stdDev = new GlobalRecord.Scores(0, 0, 0);
        } else {
            double composed = 0;
            double route = 0;
            double penalty = 0;
            for (RouteRecord record : records) {
                composed += square(record.scores().scoreComposed() - mean.scoreComposed());
                route += square(record.scores().scoreRoute() - mean.scoreRoute());
                penalty += square(record.scores().scorePenalty() - mean.scorePenalty());
            }
            double denominator = totalRoutes - 1;
            stdDev = new GlobalRecord.Scores(
                    PythonFloat.round(Math.sqrt(composed / denominator), ROUND_DIGITS),
                    PythonFloat.round(Math.sqrt(route / denominator), ROUND_DIGITS),
                    PythonFloat.round(Math.sqrt(penalty / denominator), ROUND_DIGITS));
        }

        Map<String, Double> infractions = infractionsPerKilometre(records);
        var record = new GlobalRecord(-1, -1, result, infractions, mean, stdDev,
                new GlobalRecord.Meta(totalLength, durationGame, durationSystem, exceptions));

        var values = new ArrayList<String>(Metric.values().length);
        for (Metric metric : Metric.values()) {
            values.add(PythonFloat.str(metric.of(record)));
        }
        return new GlobalResults(record, values, entryStatus(records));
    }

    /** {@code Crashed} or {@code Rejected} when a route says so (the last such route decides), else {@code Finished}. */
    public static EntryStatus entryStatus(List<RouteRecord> records) {
        EntryStatus status = EntryStatus.FINISHED;
        for (RouteRecord record : records) {
            if (record.status().contains(SIMULATION_CRASHED)) {
                status = EntryStatus.CRASHED;
            } else if (record.status().contains(SENSORS_INVALID)) {
                status = EntryStatus.REJECTED;
            }
        }
        return status;
    }

    private static Map<String, Double> infractionsPerKilometre(List<RouteRecord> records) {
        double kmDriven = 0;
        var totals = new EnumMap<Infraction, Double>(Infraction.class);
        for (Infraction infraction : Infraction.values()) {
            totals.put(infraction, 0.0);
        }
        for (RouteRecord record : records) {
            kmDriven += record.meta().routeLength() / 1000 * record.scores().scoreRoute() / 100;
            for (Infraction infraction : Infraction.values()) {
                totals.merge(infraction, infractionValue(record, infraction), Double::sum);
            }
        }
        kmDriven = Math.max(kmDriven, 0.001);
        var result = new LinkedHashMap<String, Double>();
        for (Infraction infraction : Infraction.values()) {
            double value = totals.get(infraction);
            if (infraction != Infraction.OUTSIDE_ROUTE_LANES) {
                value /= kmDriven;
            }
            result.put(infraction.key(), PythonFloat.round(value, ROUND_DIGITS));
        }
        return result;
    }

    /** Occurrences of the infraction, except off-road: the kilometres its first message reports. */
    private static double infractionValue(RouteRecord record, Infraction infraction) {
        List<String> messages = record.messages(infraction);
        if (infraction != Infraction.OUTSIDE_ROUTE_LANES) {
            return messages.size();
        }
        if (messages.isEmpty()) {
            return 0.0;
        }
        return RouteRecordCheck.offRoadMetres(messages.get(0)).orElseThrow(() -> new IllegalArgumentException(
                "route " + RouteRecordCheck.printable(record.routeId()) + ": no distance in its outside_route_lanes"
                        + " message '" + RouteRecordCheck.printable(messages.get(0)) + "'")) / 1000;
    }

    private static double square(double value) {
        return value * value;
    }
}
