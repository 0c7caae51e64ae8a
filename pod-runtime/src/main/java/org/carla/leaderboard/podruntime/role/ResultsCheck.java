package org.carla.leaderboard.podruntime.role;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The agent's verdict on its checkpoint once the evaluator has stopped: missing, unparsable, or without a global
 * record (the evaluator only writes it after the last route of its subset) is a crash.
 */
public final class ResultsCheck {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ResultsCheck() {
    }

    /** Empty when the results are complete; otherwise why not. */
    public static Optional<String> problem(Path checkpoint) {
        if (!Files.isRegularFile(checkpoint)) {
            return Optional.of("no results file " + checkpoint);
        }
        JsonNode root;
        try {
            root = JSON.readTree(checkpoint.toFile());
        } catch (JsonProcessingException e) {
            return Optional.of("results file " + checkpoint + " is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            return Optional.of("cannot read results file " + checkpoint + ": " + e.getMessage());
        }
        if (root == null || root.isMissingNode() || !root.isObject()) {
            return Optional.of("results file " + checkpoint + " is empty");
        }
        JsonNode global = root.path("_checkpoint").path("global_record");
        if (!global.isObject() || global.isEmpty()) {
            return Optional.of("results file " + checkpoint + " has no global record");
        }
        return Optional.empty();
    }

}
