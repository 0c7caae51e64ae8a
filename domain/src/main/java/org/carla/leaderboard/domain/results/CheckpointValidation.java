package org.carla.leaderboard.domain.results;

import java.util.List;
import java.util.Optional;

/**
 * The Leaderboard 2.0's last check of a results file before it counts ({@code validate_and_write_statistics}): a
 * file that fails it gets the entry status {@code Invalid}.
 */
public final class CheckpointValidation {

    private CheckpointValidation() {
    }

    /**
     * The first problem found, if any, worded as the Leaderboard words it.
     *
     * @param sensorsInitialized whether an agent set up its sensors (the merge always passes true)
     * @param crashed whether the run stopped on a simulation crash (then the progress may fall short)
     */
    public static Optional<String> problem(CheckpointFile file, boolean sensorsInitialized, boolean crashed) {
        if (sensorsInitialized && file.sensors().isEmpty()) {
            return Optional.of("Missing 'sensors' data");
        }
        if (file.values().isEmpty()) {
            return Optional.of("Missing 'values' data");
        }
        if (EntryStatus.STARTED.label().equals(file.entryStatus())) {
            return Optional.of("'entry_status' has the 'Started' value");
        }
        Checkpoint checkpoint = file.checkpoint();
        if (checkpoint.globalRecord() == null) {
            return Optional.of("Missing 'global_records' data");
        }
        List<Integer> progress = checkpoint.progress();
        if (progress.isEmpty()) {
            return Optional.of("Missing 'progress' data");
        }
        if (!crashed && (progress.size() < 2 || !progress.get(0).equals(progress.get(1))
                || progress.get(0) != checkpoint.records().size())) {
            return Optional.of("'progress' data doesn't match its expected value");
        }
        for (RouteRecord record : checkpoint.records()) {
            if (RouteRecord.STARTED.equals(record.status())) {
                return Optional.of("Found a route record with missing data");
            }
        }
        return Optional.empty();
    }

    /** The file as it counts: unchanged when valid, else with the entry status {@code Invalid}. */
    public static CheckpointFile validated(CheckpointFile file, boolean sensorsInitialized, boolean crashed) {
        return problem(file, sensorsInitialized, crashed).isPresent() ? file.withEntryStatus(EntryStatus.INVALID) : file;
    }
}
