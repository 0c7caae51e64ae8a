package org.carla.leaderboard.podruntime.role;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.ResultsJson;

/**
 * The agent's verdict on its checkpoint once the evaluator has stopped: missing, unparsable, or without a global
 * record (the evaluator writes it only after the last route of its subset) is a crash.
 */
public final class ResultsCheck {

    private ResultsCheck() {
    }

    /** Empty when the results are complete; otherwise why not. */
    public static Optional<String> problem(Path checkpoint) {
        if (!Files.isRegularFile(checkpoint)) {
            return Optional.of("no results file " + checkpoint);
        }
        CheckpointFile file;
        try {
            file = ResultsJson.read(checkpoint);
        } catch (IllegalArgumentException e) {
            return Optional.of("results file " + checkpoint + " is unusable: " + e.getMessage());
        } catch (IOException e) {
            return Optional.of("cannot read results file " + checkpoint + ": " + e.getMessage());
        }
        if (!file.hasGlobalRecord()) {
            return Optional.of("results file " + checkpoint + " has no global record (progress "
                    + file.checkpoint().progress() + ")");
        }
        return Optional.empty();
    }
}
