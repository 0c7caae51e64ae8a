package org.carla.leaderboard.domain.results;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The three files EvalAI shows for a submission, derived from the merged checkpoint as the Leaderboard-cloud
 * {@code generate_results.py}, {@code generate_stdout.py} and {@code generate_metadata.py} derive them:
 * {@code results.json} (the accuracies), {@code stdout.txt} (a summary for the participant) and {@code metadata.json}
 * (the merged checkpoint itself).
 */
public final class EvalAiFiles {

    /** The folder of the logs volume (and the S3 sub-prefix) that holds the three files. */
    public static final String DIRECTORY = "evalai";
    public static final String RESULTS = "results.json";
    public static final String STDOUT = "stdout.txt";
    public static final String METADATA = "metadata.json";

    private EvalAiFiles() {
    }

    /**
     * Writes the three files into {@code outDir} from the merged checkpoint at {@code merged}. Without a readable
     * merged file, results are all 0 and stdout says the submission is initializing; metadata is not written when
     * there is no merged file to copy.
     */
    public static void write(Path merged, Path outDir) throws IOException {
        String text;
        try {
            text = Files.readString(merged, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            text = null;
        }
        for (Map.Entry<String, String> file : texts(text).entrySet()) {
            ResultsJson.writeText(outDir.resolve(file.getKey()), file.getValue());
        }
    }

    /**
     * The files' names and texts for the merged checkpoint's text ({@code null} when there is none: then no
     * metadata). An unparsable checkpoint gives the initial results and stdout.
     */
    public static Map<String, String> texts(String mergedText) {
        Optional<CheckpointFile> file = Optional.empty();
        if (mergedText != null) {
            try {
                file = Optional.of(ResultsJson.parse(mergedText));
            } catch (IllegalArgumentException e) {
                file = Optional.empty();
            }
        }
        var texts = new LinkedHashMap<String, String>();
        texts.put(RESULTS, ResultsJson.write(results(file)));
        texts.put(STDOUT, Stdout.of(file));
        if (mergedText != null) {
            texts.put(METADATA, mergedText);
        }
        return texts;
    }

    /** {@code results.json}: one "leaderboard" split with the 15 accuracies, all 0 until the global record exists. */
    public static List<Map<String, Object>> results(Optional<CheckpointFile> merged) {
        GlobalRecord global = merged.map(file -> file.checkpoint().globalRecord()).orElse(null);
        var accuracies = new LinkedHashMap<String, Object>();
        for (Metric metric : Metric.values()) {
            // Python writes the integer 0 before the results exist, the floats of the global record after.
            accuracies.put(metric.accuracy(), global == null ? (Object) 0 : (Object) metric.of(global));
        }
        var split = new LinkedHashMap<String, Object>();
        split.put("split", "leaderboard");
        split.put("show_to_participant", true);
        split.put("accuracies", accuracies);
        return List.of(split);
    }

    /**
     * The accuracies of a {@code results.json} with their keys in snake case, as the submissions table stores them
     * ({@code Driving score} → {@code driving_score}, {@code Off-road infractions} → {@code off-road_infractions}).
     *
     * @throws IllegalArgumentException when the text is not a results list with accuracies
     */
    public static Map<String, Double> snakeCaseAccuracies(String resultsJson) {
        JsonNode root;
        try {
            root = ResultsJson.mapper().readTree(resultsJson == null ? "" : resultsJson);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("results.json is not JSON: " + e.getOriginalMessage(), e);
        }
        JsonNode accuracies = root == null ? null : root.path(0).get("accuracies");
        if (accuracies == null || !accuracies.isObject()) {
            throw new IllegalArgumentException("results.json has no accuracies");
        }
        var normalised = new LinkedHashMap<String, Double>();
        for (Map.Entry<String, JsonNode> accuracy : accuracies.properties()) {
            if (!accuracy.getValue().isNumber()) {
                throw new IllegalArgumentException("accuracy '" + accuracy.getKey() + "' is not a number");
            }
            normalised.put(Metric.snakeCase(accuracy.getKey()), accuracy.getValue().doubleValue());
        }
        return normalised;
    }
}
