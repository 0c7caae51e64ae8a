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
 * {@code merge_statistics.py} does (see {@code docs/results.md}), with one improvement: given the
 * submission's expected route total (routes × repetitions), it never computes the global statistics over fewer
 * routes, even when a whole agent file is missing. A missing, empty or unparsable input counts as no data. The inputs
 * come from containers that run a participant's code: a record that cannot count ({@link RouteRecordCheck}: a NaN or
 * out-of-range number, an unreadable route id) is left out of the merged file and named in the problems, and a file
 * with more records than the submission has routes is not merged; so the merged file, and all derived from it, holds
 * only finite numbers, and the merge costs O(records) whatever the route numbers.
 */
public final class CheckpointMerge {

    /** How the problem naming the route records left out of a merge begins (the relay tells the participant). */
    public static final String REFUSED_RECORDS = "route records refused, not counted: ";

    /** How many route ids a refusal names before it only counts the rest. */
    private static final int NAMED_IDS = 20;
    /** Most route records one agent's checkpoint may hold when the submission's route total is not known. */
    public static final int MAX_RECORDS = 20_000;

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
        var refusedRecords = new ArrayList<String>();
        var entries = new ArrayList<Entry>();
        List<String> sensors = List.of();
        long announced = 0;
        int recordLimit = expectedRoutes.orElse(MAX_RECORDS);
        for (CheckpointFile input : inputs) {
            List<RouteRecord> records = input.checkpoint().records();
            if (records.size() > recordLimit) {
                // Bounds what a hostile checkpoint costs: a file that cannot be right is not merged at all.
                problems.add("an agent's checkpoint holds " + records.size() + " route records, more than the "
                        + recordLimit + (expectedRoutes.isPresent() ? " routes of the submission" : " a merge takes")
                        + ": no data from it");
                continue;
            }
            for (RouteRecord record : records) {
                Optional<String> problem = RouteRecordCheck.problem(record);
                if (problem.isPresent()) {
                    refusedRecords.add(RouteRecordCheck.printable(record.routeId()) + ": " + problem.get());
                } else {
                    entries.add(new Entry(RouteId.parse(record.routeId()).orElseThrow(), record));
                }
            }
            announced += Math.max(0, input.checkpoint().routesTotal());
            if (!input.sensors().isEmpty()) {
                if (sensors.isEmpty()) {
                    sensors = input.sensors();
                } else if (!sensors.equals(input.sensors())) {
                    problems.add("two agents report different sensors: " + printable(sensors) + " and "
                            + printable(input.sensors()));
                }
            }
        }
        if (!refusedRecords.isEmpty()) {
            problems.add(REFUSED_RECORDS + named(refusedRecords));
        }
        // Stable, as Python's sort: records of the same route keep the order of the files.
        entries.sort(Comparator.comparing(Entry::id));
        var numbered = new ArrayList<RouteRecord>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            numbered.add(entries.get(i).record().withIndex(i));
        }

        int found = numbered.size();
        int total = expectedRoutes.orElse((int) Math.min(announced, Integer.MAX_VALUE));
        boolean complete = total > 0 && found == total;
        if (complete) {
            problems.addAll(idProblems(entries));
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
        for (Metric metric : Metric.values()) {
            double value = metric.of(global.record());
            if (!Double.isFinite(value)) {
                // Checked records cannot get here; a NaN must never reach EvalAI or DynamoDB, whatever the input.
                return new MergeResult(merged, found, total, false, List.of("the global " + metric.accuracy() + " is "
                        + PythonFloat.str(value)), skipped, Optional.empty());
            }
        }
        CheckpointFile computed = merged.withGlobalResults(global);
        Optional<String> invalid = CheckpointValidation.problem(computed, true, false);
        CheckpointFile result = invalid.isPresent() ? computed.withEntryStatus(EntryStatus.INVALID) : computed;
        return new MergeResult(result, found, total, true, List.of(), skipped, invalid);
    }

    /** A record and its parsed route id (every record merged has a readable one). */
    private record Entry(RouteId id, RouteRecord record) {
    }

    /** Route ids recorded twice, or missing from the sequence of routes and repetitions. */
    private static List<String> idProblems(List<Entry> sorted) {
        var problems = new ArrayList<String>();
        var counts = new LinkedHashMap<String, Integer>();
        var ids = new TreeSet<RouteId>();
        for (Entry entry : sorted) {
            counts.merge(entry.record().routeId(), 1, Integer::sum);
            ids.add(entry.id());
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
            missing(ids).ifPresent(problems::add);
        }
        return problems;
    }

    /**
     * The (route, repetition) ids missing between the first and last route found, every route having as many
     * repetitions as the largest one found: named up to {@link #NAMED_IDS}, counted beyond. Costs O(ids) whatever the
     * numbers (a route id of 2147483647 must not make the merge enumerate two billion slots).
     */
    private static Optional<String> missing(TreeSet<RouteId> ids) {
        RouteId first = ids.first();
        long repetitions = ids.stream().mapToLong(RouteId::repetition).max().orElseThrow() + 1;
        long slots = ((long) ids.last().route() - first.route() + 1) * repetitions;
        long missingCount = slots - ids.size();
        if (missingCount <= 0) {
            return Optional.empty();
        }
        var named = new ArrayList<String>();
        long expected = 0; // the next slot, counted from (first route, repetition 0)
        for (RouteId id : ids) {
            long slot = ((long) id.route() - first.route()) * repetitions + id.repetition();
            for (long gap = expected; gap < slot && named.size() < NAMED_IDS; gap++) {
                named.add(first.withNumbers((int) (first.route() + gap / repetitions), (int) (gap % repetitions)).text());
            }
            expected = slot + 1;
            if (named.size() >= NAMED_IDS) {
                break;
            }
        }
        for (long gap = expected; gap < slots && named.size() < NAMED_IDS; gap++) {
            named.add(first.withNumbers((int) (first.route() + gap / repetitions), (int) (gap % repetitions)).text());
        }
        String more = missingCount > named.size() ? " and " + (missingCount - named.size()) + " more" : "";
        return Optional.of("routes missing from the sequence " + first.text() + " .. " + ids.last().text() + ": "
                + String.join(", ", named) + more);
    }

    private static String printable(List<String> sensors) {
        return RouteRecordCheck.printable(String.valueOf(sensors));
    }

    private static String named(List<String> ids) {
        if (ids.size() <= NAMED_IDS) {
            return String.join(", ", ids);
        }
        return String.join(", ", ids.subList(0, NAMED_IDS)) + " and " + (ids.size() - NAMED_IDS) + " more";
    }
}
