package org.carla.leaderboard.domain.results;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;

/**
 * Merges the partial checkpoints of a submission's agents into one, as the Leaderboard 2.0's
 * {@code merge_statistics.py} does (see {@code shared/design/RESULTS.md}), with one improvement: given the
 * submission's expected route total (routes × repetitions), it never computes the global statistics over fewer
 * routes, even when a whole agent file is missing. A missing, empty or unparsable input counts as no data.
 */
public final class CheckpointMerge {

    /** How many route ids a refusal names before it only counts the rest. */
    private static final int NAMED_IDS = 20;
    private static final RouteId UNREADABLE = new RouteId("", Integer.MAX_VALUE, Integer.MAX_VALUE);

    private CheckpointMerge() {
    }

    /** Reads the files in order and merges them; an unreadable file is skipped and named in the result. */
    public static MergeResult mergeFiles(List<Path> files, OptionalInt expectedRoutes) {
        var inputs = new ArrayList<CheckpointFile>();
        var skipped = new ArrayList<String>();
        for (Path file : files) {
            try {
                inputs.add(ResultsJson.read(file));
            } catch (NoSuchFileException e) {
                skipped.add(file + ": missing");
            } catch (IOException e) {
                skipped.add(file + ": unreadable (" + e.getMessage() + ")");
            } catch (IllegalArgumentException e) {
                skipped.add(file + ": " + e.getMessage());
            }
        }
        return merge(inputs, expectedRoutes, skipped);
    }

    public static MergeResult merge(List<CheckpointFile> inputs, OptionalInt expectedRoutes) {
        return merge(inputs, expectedRoutes, List.of());
    }

    private static MergeResult merge(List<CheckpointFile> inputs, OptionalInt expectedRoutes, List<String> skipped) {
        var problems = new ArrayList<String>();
        var records = new ArrayList<RouteRecord>();
        List<String> sensors = List.of();
        int announced = 0;
        for (CheckpointFile input : inputs) {
            records.addAll(input.checkpoint().records());
            announced += input.checkpoint().routesTotal();
            if (!input.sensors().isEmpty()) {
                if (sensors.isEmpty()) {
                    sensors = input.sensors();
                } else if (!sensors.equals(input.sensors())) {
                    problems.add("two agents report different sensors: " + sensors + " and " + input.sensors());
                }
            }
        }
        // Stable, as Python's sort: records of the same route keep the order of the files.
        records.sort(Comparator.comparing(CheckpointMerge::sortKey));
        var numbered = new ArrayList<RouteRecord>(records.size());
        for (int i = 0; i < records.size(); i++) {
            numbered.add(records.get(i).withIndex(i));
        }

        int found = numbered.size();
        int total = expectedRoutes.orElse(announced);
        boolean complete = total > 0 && found == total;
        if (complete) {
            problems.addAll(idProblems(numbered));
            if (expectedRoutes.isPresent() && announced != total) {
                problems.add("the agents' checkpoints announce " + announced + " routes, the submission expects "
                        + total);
            }
        }
        List<Integer> progress = found == 0 && announced == 0 ? List.of() : List.of(found, total);
        CheckpointFile merged = CheckpointFile.started(sensors, progress, numbered);
        if (!complete || !problems.isEmpty()) {
            return new MergeResult(merged, found, total, false, problems, skipped, Optional.empty());
        }
        GlobalResults global;
        try {
            global = GlobalStatistics.compute(numbered, total);
        } catch (IllegalArgumentException e) {
            return new MergeResult(merged, found, total, false, List.of(e.getMessage()), skipped, Optional.empty());
        }
        CheckpointFile computed = merged.withGlobalResults(global);
        Optional<String> invalid = CheckpointValidation.problem(computed, true, false);
        CheckpointFile result = invalid.isPresent() ? computed.withEntryStatus(EntryStatus.INVALID) : computed;
        return new MergeResult(result, found, total, true, List.of(), skipped, invalid);
    }

    /** An unreadable route id sorts last (the Leaderboard's script would stop on it; the refusal names it). */
    private static RouteId sortKey(RouteRecord record) {
        return RouteId.parse(record.routeId()).orElse(UNREADABLE);
    }

    /** Route ids that are unreadable, recorded twice, or missing from the sequence of routes and repetitions. */
    private static List<String> idProblems(List<RouteRecord> records) {
        var problems = new ArrayList<String>();
        var counts = new LinkedHashMap<String, Integer>();
        var unreadable = new ArrayList<String>();
        var ids = new TreeSet<RouteId>();
        for (RouteRecord record : records) {
            counts.merge(String.valueOf(record.routeId()), 1, Integer::sum);
            RouteId.parse(record.routeId()).ifPresentOrElse(ids::add, () -> unreadable.add(record.routeId()));
        }
        if (!unreadable.isEmpty()) {
            problems.add("route ids not of the form <name>_<route>_rep<repetition>: " + named(unreadable));
        }
        var duplicated = new ArrayList<String>();
        for (Map.Entry<String, Integer> count : counts.entrySet()) {
            if (count.getValue() > 1) {
                duplicated.add(count.getKey() + " (" + count.getValue() + " records)");
            }
        }
        if (!duplicated.isEmpty()) {
            problems.add("routes recorded more than once: " + named(duplicated));
        }
        if (!ids.isEmpty()) {
            int repetitions = ids.stream().mapToInt(RouteId::repetition).max().orElseThrow() + 1;
            RouteId first = ids.first();
            var missing = new ArrayList<String>();
            for (int route = first.route(); route <= ids.last().route(); route++) {
                for (int repetition = 0; repetition < repetitions; repetition++) {
                    RouteId id = first.withNumbers(route, repetition);
                    if (!ids.contains(id)) {
                        missing.add(id.text());
                    }
                }
            }
            if (!missing.isEmpty()) {
                problems.add("routes missing from the sequence " + first.text() + " .. " + ids.last().text() + ": "
                        + named(missing));
            }
        }
        return problems;
    }

    private static String named(List<String> ids) {
        if (ids.size() <= NAMED_IDS) {
            return String.join(", ", ids);
        }
        return String.join(", ", ids.subList(0, NAMED_IDS)) + " and " + (ids.size() - NAMED_IDS) + " more";
    }
}
