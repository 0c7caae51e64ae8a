package org.carla.leaderboard.localstack.kubernetes;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The completion indexes of an Indexed Job that succeeded, as the Job controller keeps them (kubernetes
 * pkg/controller/job/indexed_job_utils.go, 1.31): read from {@code status.completedIndexes} (an index at or past
 * {@code completions} ends the reading, a part that is not a number is skipped), written back in its compressed form:
 * intervals joined by commas, an interval of three or more as {@code first-last}, one of two as {@code first,last}
 * ({@code 0-2,4}, {@code 0,1}); and the first indexes still to run ({@code firstPendingIndexes}). Not thread-safe: its
 * Job's thread owns it.
 */
final class CompletionIndexes {

    private final NavigableSet<Integer> indexes = new TreeSet<>();

    /** {@code status.completedIndexes} of a Job with {@code completions}; empty for null or "". */
    static CompletionIndexes parse(String completedIndexes, int completions) {
        CompletionIndexes parsed = new CompletionIndexes();
        if (completedIndexes == null || completedIndexes.isEmpty()) {
            return parsed;
        }
        for (String interval : completedIndexes.split(",")) {
            String[] limits = interval.split("-");
            int first;
            int last;
            try {
                first = Integer.parseInt(limits[0]);
                last = limits.length > 1 ? Integer.parseInt(limits[1]) : first;
            } catch (NumberFormatException e) {
                continue; // the controller logs a corrupted interval and ignores it
            }
            if (first >= completions) {
                break;
            }
            for (int index = Math.max(first, 0); index <= Math.min(last, completions - 1); index++) {
                parsed.indexes.add(index);
            }
        }
        return parsed;
    }

    /** Adds a succeeded index; false when it was there already. */
    boolean add(int index) {
        return indexes.add(index);
    }

    boolean has(int index) {
        return indexes.contains(index);
    }

    /** How many indexes succeeded: the Job's {@code status.succeeded}. */
    int total() {
        return indexes.size();
    }

    /**
     * Up to {@code count} indexes below {@code completions}, lowest first, that neither succeeded nor are in
     * {@code busy} (the indexes of active pods, and of terminating ones when only failed pods are replaced).
     */
    List<Integer> firstPending(Collection<Integer> busy, int count, int completions) {
        List<Integer> pending = new ArrayList<>();
        for (int index = 0; index < completions && pending.size() < count; index++) {
            if (!indexes.contains(index) && !busy.contains(index)) {
                pending.add(index);
            }
        }
        return pending;
    }

    /** The compressed form, {@code status.completedIndexes}; "" when none succeeded. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        Integer first = null;
        Integer last = null;
        for (int index : indexes) {
            if (last != null && index == last + 1) {
                last = index;
                continue;
            }
            append(out, first, last);
            first = index;
            last = index;
        }
        append(out, first, last);
        return out.toString();
    }

    private static void append(StringBuilder out, Integer first, Integer last) {
        if (first == null) {
            return;
        }
        if (out.length() > 0) {
            out.append(',');
        }
        out.append(first);
        if (last > first) {
            out.append(last == first + 1 ? ',' : '-').append(last);
        }
    }
}
