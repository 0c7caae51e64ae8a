package org.carla.leaderboard.domain.results;

import java.util.List;
import java.util.Optional;

/**
 * The outcome of {@link CheckpointMerge}: the merged file; how many routes are recorded of how many expected; whether
 * the global results were computed; what was refused ({@code problems}: records that cannot count and were left out,
 * a checkpoint with too many records, and when every route was there duplicated or missing route ids, conflicting
 * sensors); the inputs that counted as no data and why; and, when the global results were computed but
 * did not pass the Leaderboard's validation, why the entry is {@code Invalid}.
 */
public record MergeResult(CheckpointFile merged, int routesDone, int routesTotal, boolean globalResults,
        List<String> problems, List<String> skippedInputs, Optional<String> invalidReason) {

    public MergeResult {
        problems = List.copyOf(problems);
        skippedInputs = List.copyOf(skippedInputs);
    }

    /** Something was refused: a record or a file left out, or the global results although every route is there. */
    public boolean refused() {
        return !problems.isEmpty();
    }
}
