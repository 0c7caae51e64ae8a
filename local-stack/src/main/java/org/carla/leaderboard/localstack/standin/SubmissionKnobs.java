package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Knobs for one submission's stand-ins. The image profiles of the local Job runner are per image, so one submission
 * cannot be scripted through them alone; with {@code STANDIN_KNOBS_DIR} set, the file
 * {@code <dir>/<SUBMISSION_ID>.properties} (when it exists) holds knobs that take precedence over the environment.
 */
public final class SubmissionKnobs {

    public static final String DIR = "STANDIN_KNOBS_DIR";

    private SubmissionKnobs() {
    }

    /** The environment with this submission's knobs file laid over it. */
    public static Map<String, String> environment(Map<String, String> env) {
        String dir = env.get(DIR);
        String submission = env.get("SUBMISSION_ID");
        if (dir == null || dir.isBlank() || submission == null || !submission.matches("[A-Za-z0-9_.-]+")) {
            return env;
        }
        Path file = file(Path.of(dir), submission);
        if (!Files.isRegularFile(file)) {
            return env;
        }
        var merged = new HashMap<>(env);
        var knobs = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            knobs.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the stand-in knobs " + file, e);
        }
        knobs.stringPropertyNames().forEach(name -> merged.put(name, knobs.getProperty(name)));
        return merged;
    }

    /** Where the knobs of a submission are read from. */
    public static Path file(Path dir, String submissionId) {
        return dir.resolve(submissionId + ".properties");
    }
}
