package org.carla.leaderboard.podruntime.results;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.results.MergeResult;
import org.carla.leaderboard.domain.results.ResultsJson;

/**
 * One refresh of a submission's results in the logs volume: the N agents' checkpoints
 * ({@code agent/agent<i>/agent_results.json}) merged into {@code agent_results.json}, and EvalAI's three files in
 * {@code evalai/}. A file whose text did not change is not rewritten, so an unchanged result costs no upload. An
 * agent's file caught half-written counts with its last complete content; a missing one counts as no data.
 */
public final class ResultsRefresh {

    public static final String CHECKPOINT = "agent_results.json";

    private final Path logsDir;
    private final int workerPairs;
    private final OptionalInt expectedRoutes;
    private final Map<Path, CheckpointFile> lastGood = new HashMap<>();
    private String resultsDigest = digest(ResultsJson.write(EvalAiFiles.results(java.util.Optional.empty())));

    public ResultsRefresh(Path logsDir, int workerPairs, OptionalInt expectedRoutes) {
        this.logsDir = logsDir;
        this.workerPairs = workerPairs;
        this.expectedRoutes = expectedRoutes;
    }

    /** The agents' checkpoints, pair 1 first. */
    public static List<Path> agentCheckpoints(Path logsDir, int workerPairs) {
        var files = new ArrayList<Path>(workerPairs);
        for (int pair = 1; pair <= workerPairs; pair++) {
            files.add(logsDir.resolve("agent").resolve("agent" + pair).resolve(CHECKPOINT));
        }
        return files;
    }

    public Path mergedCheckpoint() {
        return logsDir.resolve(CHECKPOINT);
    }

    public Path evalAiDir() {
        return logsDir.resolve(EvalAiFiles.DIRECTORY);
    }

    public MergeResult refresh() throws IOException {
        var inputs = new ArrayList<CheckpointFile>();
        var skipped = new ArrayList<String>();
        for (Path file : agentCheckpoints(logsDir, workerPairs)) {
            try {
                CheckpointFile read = ResultsJson.read(file);
                lastGood.put(file, read);
                inputs.add(read);
            } catch (NoSuchFileException e) {
                lastGood.remove(file);
                skipped.add(file + ": missing");
            } catch (IOException | IllegalArgumentException e) {
                // The evaluator rewrites its file in place (truncate, then write): a read can catch it half-written.
                CheckpointFile previous = lastGood.get(file);
                if (previous != null) {
                    inputs.add(previous);
                } else {
                    skipped.add(file + ": " + e.getMessage());
                }
            }
        }
        MergeResult merge = CheckpointMerge.merge(inputs, expectedRoutes);
        var result = new MergeResult(merge.merged(), merge.routesDone(), merge.routesTotal(), merge.globalResults(),
                merge.problems(), skipped, merge.invalidReason());
        String merged = ResultsJson.write(result.merged());
        writeIfChanged(mergedCheckpoint(), merged);
        for (Map.Entry<String, String> file : EvalAiFiles.texts(merged).entrySet()) {
            writeIfChanged(evalAiDir().resolve(file.getKey()), file.getValue());
            if (file.getKey().equals(EvalAiFiles.RESULTS)) {
                resultsDigest = digest(file.getValue());
            }
        }
        return result;
    }

    /** SHA-256 (hex) of the last {@code results.json} written: what a progress report names as its news. */
    public String resultsDigest() {
        return resultsDigest;
    }

    private static String digest(String text) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }

    /** Replaces the file (whole, in one step) only when its text differs. */
    static void writeIfChanged(Path file, String text) throws IOException {
        try {
            if (Files.readString(file, StandardCharsets.UTF_8).equals(text)) {
                return;
            }
        } catch (NoSuchFileException e) {
            // first write
        }
        ResultsJson.writeText(file, text);
    }
}
