package org.carla.leaderboard.domain.results;

import java.util.List;
import java.util.Optional;

/**
 * Where the Leaderboard 2.0 evaluator, started with {@code --resume}, continues from a checkpoint
 * ({@code RouteIndexer.validate_and_resume}): no data, an {@code Invalid} entry, another route total or other route ids
 * → from the start; otherwise at {@code progress[0]}, or one route earlier when the entry is {@code Crashed} (the
 * crashed route runs again). {@code index} is the number of the checkpoint's routes the evaluator keeps.
 */
public record ResumePoint(int index, Optional<String> refusal) {

    /**
     * @param data the checkpoint as read; empty when missing or not a results file ({@code fetch_dict} gives nothing)
     * @param routeIds the route ids the evaluator would run, in order ({@code RouteScenario_3_rep0}, ...); empty when
     *        the caller does not know them (it has not read the routes file), so the route total and ids go unchecked
     */
    public static ResumePoint of(Optional<CheckpointFile> data, Optional<List<String>> routeIds) {
        if (data.isEmpty()) {
            return fresh("Found no data");
        }
        CheckpointFile file = data.get();
        if (EntryStatus.INVALID.label().equals(file.entryStatus())) {
            return fresh("The 'entry_status' is 'Invalid'");
        }
        List<Integer> progress = file.checkpoint().progress();
        if (progress.size() != 2 || progress.get(0) == null || progress.get(1) == null || progress.get(0) < 0
                || progress.get(0) > progress.get(1)) {
            return fresh("Given endpoint is malformed (progress " + progress + ")");
        }
        if (routeIds.isPresent() && progress.get(1) != routeIds.get().size()) {
            return fresh("Endpoint's amount of routes does not match the given one");
        }
        List<RouteRecord> records = file.checkpoint().records();
        int resumeAt = progress.get(0);
        for (int i = 0; i < resumeAt; i++) {
            if (i >= records.size()) {
                resumeAt = Math.max(i - 1, 0); // the Leaderboard's own patch for a progress ahead of its records
                break;
            }
            if (routeIds.isPresent() && !routeIds.get().get(i).equals(records.get(i).routeId())) {
                return fresh("Checkpoint routes don't match the current ones");
            }
        }
        boolean crashed = EntryStatus.CRASHED.label().equals(file.entryStatus());
        return new ResumePoint(crashed ? Math.max(0, resumeAt - 1) : resumeAt, Optional.empty());
    }

    private static ResumePoint fresh(String refusal) {
        return new ResumePoint(0, Optional.of(refusal));
    }

    /** Whether the evaluator keeps any finished route of the checkpoint. */
    public boolean keepsRoutes() {
        return index > 0;
    }
}
