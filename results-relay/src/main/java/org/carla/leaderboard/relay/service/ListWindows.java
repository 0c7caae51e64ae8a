package org.carla.leaderboard.relay.service;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import org.carla.leaderboard.relay.client.ListWindow;

/**
 * The lists that cover a challenge's runs not over. EvalAI's list of a challenge's cancelled submissions has no pages:
 * it answers every match at once, and a resumed or re-run submission keeps its first {@code submitted_at}, so a list
 * from the oldest run's submission on would read the challenge's whole cancelled history. The runs are grouped instead
 * by their submission times, a group ending where the next run was submitted more than {@link #GAP} later, and each
 * group is one list bounded on both sides ({@code submitted_after} a second before its first run, {@code
 * submitted_before} a second after its last: EvalAI's filters are strict and read seconds). What a list reads is then
 * the cancelled submissions made while the runs it covers were made, never the challenge's past; the price is one list
 * more per group, on a deadline day one or two per challenge. A run whose submission time is not known is found only
 * by a list without bounds, which then covers every run.
 */
final class ListWindows {

    /** Runs submitted further apart than this are listed apart. */
    static final Duration GAP = Duration.ofHours(1);

    private ListWindows() {
    }

    /** One list and the runs it covers. */
    record Group<T>(ListWindow window, List<T> runs) {
    }

    static <T> List<Group<T>> cover(List<T> runs, Function<T, Optional<Instant>> submitted) {
        if (runs.stream().anyMatch(run -> submitted.apply(run).isEmpty())) {
            return List.of(new Group<>(ListWindow.ALL, List.copyOf(runs)));
        }
        var sorted = runs.stream().sorted(Comparator.comparing(run -> submitted.apply(run).orElseThrow())).toList();
        var groups = new ArrayList<Group<T>>();
        var current = new ArrayList<T>();
        Instant last = null;
        for (T run : sorted) {
            Instant at = submitted.apply(run).orElseThrow();
            if (last != null && Duration.between(last, at).compareTo(GAP) > 0) {
                groups.add(group(current, submitted));
                current = new ArrayList<>();
            }
            current.add(run);
            last = at;
        }
        if (!current.isEmpty()) {
            groups.add(group(current, submitted));
        }
        return groups;
    }

    private static <T> Group<T> group(List<T> runs, Function<T, Optional<Instant>> submitted) {
        Instant first = submitted.apply(runs.get(0)).orElseThrow().truncatedTo(ChronoUnit.SECONDS);
        Instant last = submitted.apply(runs.get(runs.size() - 1)).orElseThrow().truncatedTo(ChronoUnit.SECONDS);
        return new Group<>(new ListWindow(Optional.of(first.minusSeconds(1)), Optional.of(last.plusSeconds(1))),
                List.copyOf(runs));
    }
}
