package org.carla.leaderboard.relay.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.TreeSet;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.GlobalRecord;
import org.carla.leaderboard.domain.results.Metric;
import org.carla.leaderboard.domain.results.RouteId;
import org.carla.leaderboard.domain.results.RouteRecord;

/**
 * The relay's own check of the merged checkpoint logcopy uploaded, which a participant's code can write: its route
 * records are merged again with the domain's {@link CheckpointMerge} against the run's expected routes (recorded by
 * ingest-service, never taken from the pod), and the global results are computed again from them. The results are
 * complete when every expected route has exactly one finished record, with ids in sequence, and every metric is a
 * number EvalAI and DynamoDB take and a score can be. What EvalAI is shown is always this re-merged file; without
 * complete results, without its global results.
 *
 * @param shown    the checkpoint to show (metadata, results and stdout derive from it)
 * @param problems why the results are not complete, for the participant; empty when they are
 */
record ResultsAudit(CheckpointFile shown, List<String> problems) {

    /** How many route ids a message names before it counts the rest. */
    private static final int NAMED = 20;
    /** Above this an infraction total (per km) is no count a drive produces; it would also overflow DynamoDB. */
    private static final double MAX_INFRACTIONS = 1e9;

    static ResultsAudit of(CheckpointFile uploaded, OptionalInt expectedRoutes) {
        var merge = CheckpointMerge.merge(List.of(uploaded), expectedRoutes);
        var merged = merge.merged();
        int expected = merge.routesTotal();
        var problems = new ArrayList<String>();
        var records = merged.checkpoint().records();
        if (expected <= 0) {
            problems.add("the run expects no routes");
        } else if (records.size() < expected) {
            problems.add("the results hold " + records.size() + " finished routes of the " + expected + " expected"
                    + missing(records, expected));
        } else if (records.size() > expected) {
            problems.add("the results hold " + records.size() + " route records, more than the " + expected
                    + " routes expected");
        }
        problems.addAll(merge.problems());
        var unfinished = records.stream().filter(r -> RouteRecord.STARTED.equals(r.status()))
                .map(RouteRecord::routeId).toList();
        if (!unfinished.isEmpty()) {
            problems.add("routes without a finished record: " + named(unfinished));
        }
        if (problems.isEmpty() && merge.globalResults()) {
            problems.addAll(unusableNumbers(merged.checkpoint().globalRecord()));
        } else if (problems.isEmpty()) {
            problems.add("the global results could not be computed");
        }
        if (problems.isEmpty()) {
            return new ResultsAudit(merged, List.of());
        }
        return new ResultsAudit(CheckpointFile.started(merged.sensors(), merged.checkpoint().progress(), records),
                List.copyOf(problems));
    }

    boolean complete() {
        return problems.isEmpty();
    }

    /** The metrics that no score can be: not a number, infinite, negative, or beyond its scale. */
    static List<String> unusableNumbers(GlobalRecord global) {
        var unusable = new ArrayList<String>();
        for (Metric metric : Metric.values()) {
            double value = metric.of(global);
            double max = switch (metric) {
                case DRIVING_SCORE, ROUTE_COMPLETION -> 100;
                case INFRACTION_PENALTY -> 1;
                default -> MAX_INFRACTIONS;
            };
            if (!Double.isFinite(value) || value < 0 || value > max) {
                unusable.add(metric.attribute() + " = " + text(value) + " (" + (Double.isFinite(value)
                        ? "outside 0.." + text(max) : "not a number") + ")");
            }
        }
        return unusable.isEmpty() ? List.of()
                : List.of("the results hold numbers no score can be: " + String.join(", ", unusable));
    }

    /** The route ids missing from the recorded sequence, and how many more are expected beyond it. */
    private static String missing(List<RouteRecord> records, int expected) {
        var ids = new TreeSet<RouteId>();
        records.forEach(record -> RouteId.parse(record.routeId()).ifPresent(ids::add));
        if (ids.isEmpty()) {
            return "";
        }
        int repetitions = ids.stream().mapToInt(RouteId::repetition).max().orElseThrow() + 1;
        var gaps = new ArrayList<String>();
        for (long route = ids.first().route(); route <= ids.last().route() && gaps.size() <= expected; route++) {
            for (int repetition = 0; repetition < repetitions; repetition++) {
                RouteId id = ids.first().withNumbers((int) route, repetition);
                if (!ids.contains(id)) {
                    gaps.add(id.text());
                }
            }
        }
        long beyond = (long) expected - records.size() - gaps.size();
        String text = gaps.isEmpty() ? "" : "; missing: " + named(gaps);
        if (beyond > 0) {
            text += (gaps.isEmpty() ? "; " : ", and ") + beyond + " route" + (beyond == 1 ? "" : "s")
                    + " before " + ids.first().text() + " or after " + ids.last().text();
        }
        return text;
    }

    private static String named(List<String> ids) {
        if (ids.size() <= NAMED) {
            return String.join(", ", ids);
        }
        return String.join(", ", ids.subList(0, NAMED)) + " and " + (ids.size() - NAMED) + " more";
    }

    private static String text(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "Infinity" : "-Infinity";
        }
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value)
                : String.format(Locale.ROOT, "%.6g", value);
    }
}
