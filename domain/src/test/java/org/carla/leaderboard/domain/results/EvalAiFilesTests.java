package org.carla.leaderboard.domain.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

class EvalAiFilesTests {

    @Test
    void writesTheThreeFilesFromTheMergedCheckpoint(@TempDir Path dir) throws Exception {
        Path merged = dir.resolve("agent_results.json");
        ResultsJson.write(merged,
                CheckpointMerge.merge(CheckpointMergeTests.fourRoutesDone(), OptionalInt.of(4)).merged());
        Path out = dir.resolve("evalai");

        EvalAiFiles.write(merged, out);

        JsonNode results = ResultsJson.mapper().readTree(out.resolve("results.json").toFile());
        assertThat(results.size()).isEqualTo(1);
        assertThat(results.get(0).get("split").asText()).isEqualTo("leaderboard");
        assertThat(results.get(0).get("show_to_participant").asBoolean()).isTrue();
        JsonNode accuracies = results.get(0).get("accuracies");
        assertThat(accuracies.fieldNames()).toIterable().containsExactly("Driving score", "Route completion",
                "Infraction penalty", "Collisions pedestrians", "Collisions vehicles", "Collisions layout",
                "Red light infractions", "Stop sign infractions", "Off-road infractions", "Route deviations",
                "Route timeouts", "Agent blocked", "Yield emergency vehicle infractions", "Scenario timeouts",
                "Min speed infractions");
        assertThat(accuracies.get("Driving score").doubleValue()).isEqualTo(65.625);
        assertThat(accuracies.get("Off-road infractions").doubleValue()).isEqualTo(0.052);
        assertThat(accuracies.get("Agent blocked").doubleValue()).isEqualTo(0.25);
        assertThat(Files.readString(out.resolve("metadata.json"))).isEqualTo(Files.readString(merged));
        assertThat(Files.readString(out.resolve("stdout.txt"))).isEqualTo("""
                Here is a summary of the submission's results

                General information:
                - Sensors:
                  - 2 RGB Camera
                  - 1 LIDAR
                  - 1 GNSS
                  - 1 IMU
                  - 1 Speedometer
                - All 4 route have been completed
                - Submission ratio of 0.5x
                - Submission FPS of 10.0
                - Results:
                  - Driving score: 65.625
                  - Route completion: 87.5
                  - Infraction penalty: 0.7375
                  - Collisions pedestrians: 0.0
                  - Collisions vehicles: 0.25
                  - Collisions layout: 0.25
                  - Red light infractions: 0.25
                  - Stop sign infractions: 0.0
                  - Off-road infractions: 0.052
                  - Route deviations: 0.0
                  - Route timeouts: 0.0
                  - Agent blocked: 0.25
                  - Yield emergency vehicle infractions: 0.0
                  - Scenario timeouts: 0.0
                  - Min speed infractions: 0.0

                Glossary of each route:

                - Index: 0
                  - Route ID: RouteScenario_0_rep0
                  - Status: Perfect
                  - Ratio: 0.5x
                  - FPS: 10.0

                - Index: 1
                  - Route ID: RouteScenario_1_rep0
                  - Status: Completed
                  - Ratio: 0.5x
                  - FPS: 10.0

                - Index: 2
                  - Route ID: RouteScenario_2_rep0
                  - Status: Failed - Agent got blocked
                  - Ratio: 0.5x
                  - FPS: 10.0

                - Index: 3
                  - Route ID: RouteScenario_3_rep0
                  - Status: Completed
                  - Ratio: 0.5x
                  - FPS: 10.0
                """);
    }

    @Test
    void partialResultsShowProgressAndZeros() {
        CheckpointFile merged = CheckpointMerge.merge(Routes.files(Routes.agent(3,
                Routes.route(0, 0, "Perfect", 100.0, 1.0, 1000.0, 30.0, 70.0),
                Routes.route(1, 0, "Failed - Simulation crashed", 3.0, 1.0, 1000.0, 0.0, 0.0))), OptionalInt.of(5))
                .merged();

        String stdout = Stdout.of(Optional.of(merged));

        assertThat(stdout).startsWith("Here is a summary of the submission's current results\n\n")
                .contains("- Completed 2 out of the 5 routes\n")
                // 30 / 70 = 0.428571... → 0.4286; FPS from the rounded ratio: 20 × 0.4286 = 8.572
                .contains("- Submission ratio of 0.4286x\n- Submission FPS of 8.572\n\nGlossary")
                // A route without system time has Python's integer ratio 0.
                .contains("  - Ratio: 0x\n  - FPS: 0\n")
                // FPS of a route from its unrounded ratio: 20 × 0.428571... = 8.5714
                .contains("  - Ratio: 0.4286x\n  - FPS: 8.5714\n")
                .doesNotContain("- Results:");
        assertThat(EvalAiFiles.results(Optional.of(merged)).get(0).get("accuracies")).asString()
                .isEqualTo("{Driving score=0, Route completion=0, Infraction penalty=0, Collisions pedestrians=0, "
                        + "Collisions vehicles=0, Collisions layout=0, Red light infractions=0, "
                        + "Stop sign infractions=0, Off-road infractions=0, Route deviations=0, Route timeouts=0, "
                        + "Agent blocked=0, Yield emergency vehicle infractions=0, Scenario timeouts=0, "
                        + "Min speed infractions=0}");
    }

    @Test
    void beforeAnyDataTheSubmissionIsInitializing(@TempDir Path dir) throws Exception {
        Path merged = dir.resolve("agent_results.json");
        ResultsJson.write(merged, CheckpointMerge.merge(List.of(), OptionalInt.of(20)).merged());

        EvalAiFiles.write(merged, dir.resolve("evalai"));
        EvalAiFiles.write(dir.resolve("missing.json"), dir.resolve("none"));

        assertThat(Files.readString(dir.resolve("evalai/stdout.txt")))
                .startsWith("Initializing the submission, no data available yet.");
        assertThat(Files.readString(dir.resolve("none/stdout.txt"))).startsWith("Initializing the submission");
        assertThat(dir.resolve("none/metadata.json")).doesNotExist();
        assertThat(EvalAiFiles.snakeCaseAccuracies(Files.readString(dir.resolve("none/results.json"))))
                .containsEntry("driving_score", 0.0).hasSize(15);
    }

    @Test
    void accuraciesInSnakeCaseForTheSubmissionsTable() {
        String results = ResultsJson.write(EvalAiFiles.results(Optional.of(
                CheckpointMerge.merge(CheckpointMergeTests.fourRoutesDone(), OptionalInt.of(4)).merged())));

        var accuracies = EvalAiFiles.snakeCaseAccuracies(results);

        assertThat(accuracies.keySet()).containsExactly("driving_score", "route_completion", "infraction_penalty",
                "collisions_pedestrians", "collisions_vehicles", "collisions_layout", "red_light_infractions",
                "stop_sign_infractions", "off-road_infractions", "route_deviations", "route_timeouts",
                "agent_blocked", "yield_emergency_vehicle_infractions", "scenario_timeouts", "min_speed_infractions");
        assertThat(accuracies).containsEntry("agent_blocked", 0.25).containsEntry("driving_score", 65.625);
        assertThat(Metric.AGENT_BLOCKED.attribute()).isEqualTo("agent_blocked");
        assertThatThrownBy(() -> EvalAiFiles.snakeCaseAccuracies("{}"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
