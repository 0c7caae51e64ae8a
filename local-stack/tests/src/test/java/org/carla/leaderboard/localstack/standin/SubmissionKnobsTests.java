package org.carla.leaderboard.localstack.standin;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SubmissionKnobsTests {

    @TempDir
    Path dir;

    @Test
    void theSubmissionsFileOverridesTheEnvironmentForThatSubmissionOnly() throws Exception {
        Files.writeString(SubmissionKnobs.file(dir, "42"), "CARLA_STANDIN_DIE_AFTER_SECONDS=3\n");
        Map<String, String> env = Map.of(SubmissionKnobs.DIR, dir.toString(), "CARLA_STANDIN_DIE_AFTER_SECONDS", "",
                "EVALUATOR_STANDIN_ROUTE_SECONDS", "1");

        var forSubmission42 = SubmissionKnobs.environment(with(env, "SUBMISSION_ID", "42"));
        var forSubmission43 = SubmissionKnobs.environment(with(env, "SUBMISSION_ID", "43"));

        assertThat(forSubmission42).containsEntry("CARLA_STANDIN_DIE_AFTER_SECONDS", "3")
                .containsEntry("EVALUATOR_STANDIN_ROUTE_SECONDS", "1");
        assertThat(forSubmission43).containsEntry("CARLA_STANDIN_DIE_AFTER_SECONDS", "");
    }

    @Test
    void aSubmissionIdThatIsNotAFileNameReadsNothing() throws Exception {
        Files.writeString(dir.resolve("x.properties"), "EVALUATOR_STANDIN_HANG_AT_ROUTE=1\n");
        var env = SubmissionKnobs.environment(Map.of(SubmissionKnobs.DIR, dir.resolve("sub").toString(),
                "SUBMISSION_ID", "../x"));
        assertThat(env).doesNotContainKey("EVALUATOR_STANDIN_HANG_AT_ROUTE");
    }

    private static Map<String, String> with(Map<String, String> env, String key, String value) {
        var copy = new java.util.HashMap<>(env);
        copy.put(key, value);
        return copy;
    }
}
