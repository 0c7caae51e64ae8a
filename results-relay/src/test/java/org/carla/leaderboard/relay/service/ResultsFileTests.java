package org.carla.leaderboard.relay.service;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResultsFileTests {

    @Test
    void accuraciesBecomeSnakeCaseMetrics() {
        var metrics = ResultsFile.metrics("""
                [{"split": "leaderboard", "show_to_participant": true, "accuracies": {
                  "Driving score": 41.2, "Off-road infractions": 0.125, "Agent blocked": 0.4,
                  "Yield emergency vehicle infractions": 0.0}}]""");

        assertThat(metrics).containsEntry("driving_score", 41.2).containsEntry("off-road_infractions", 0.125)
                .containsEntry("agent_blocked", 0.4).containsEntry("yield_emergency_vehicle_infractions", 0.0);
    }

    @Test
    void theFifteenMetricNamesAreTheRecordsAttributes() {
        assertThat(ResultsFile.ACCURACIES.stream().map(ResultsFile::snakeCase)).containsExactly("driving_score",
                "route_completion", "infraction_penalty", "collisions_pedestrians", "collisions_vehicles",
                "collisions_layout", "red_light_infractions", "stop_sign_infractions", "off-road_infractions",
                "route_deviations", "route_timeouts", "agent_blocked", "yield_emergency_vehicle_infractions",
                "scenario_timeouts", "min_speed_infractions");
    }

    @Test
    void anUnreadableFileHasNoMetrics() {
        assertThat(ResultsFile.metrics("not json")).isEmpty();
        assertThat(ResultsFile.metrics("")).isEmpty();
        assertThat(ResultsFile.metrics("{}")).isEmpty();
    }

    @Test
    void theEmptyResultsCarryEveryAccuracyAsZero() {
        var metrics = ResultsFile.metrics(ResultsFile.empty());

        assertThat(metrics).hasSize(15).allSatisfy((name, value) -> assertThat(value).isZero());
    }
}
