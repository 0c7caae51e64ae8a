package org.carla.leaderboard.relay.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.carla.leaderboard.domain.results.ResultsJson;
import org.junit.jupiter.api.Test;

class ResultsAuditTests {

    @Test
    void everyExpectedRouteFinishedIsComplete() {
        var audit = audit(3, "40.0", 0, 1, 2);

        assertThat(audit.complete()).isTrue();
        assertThat(audit.shown().hasGlobalRecord()).isTrue();
    }

    @Test
    void missingRoutesAreCountedAndTheGapsNamed() {
        assertThat(audit(3, "40.0", 0, 2).problems()).containsExactly(
                "the results hold 2 finished routes of the 3 expected; missing: RouteScenario_1_rep0");
        assertThat(audit(3, "40.0", 4).problems()).containsExactly(
                "the results hold 1 finished routes of the 3 expected; 2 routes before RouteScenario_4_rep0 or after"
                        + " RouteScenario_4_rep0");
        assertThat(audit(3, "40.0", 0, 1, 2).shown().hasGlobalRecord()).isTrue();
        assertThat(audit(3, "40.0", 0, 2).shown().hasGlobalRecord()).isFalse();
    }

    @Test
    void moreRecordsThanExpectedAreNotComplete() {
        assertThat(audit(2, "40.0", 0, 1, 2).problems())
                .contains("an agent's checkpoint holds 3 route records, more than the 2 routes of the submission: no data"
                        + " from it");
    }

    @Test
    void numbersNoScoreCanBeAreNamedAndNeverShown() {
        var audit = audit(2, "NaN", 0, 1);

        assertThat(audit.problems()).containsExactly("the results hold 0 finished routes of the 2 expected",
                "route records refused, not counted: RouteScenario_0_rep0: score_composed is nan, not a number from 0"
                        + " to 100.0, RouteScenario_1_rep0: score_composed is nan, not a number from 0 to 100.0");
        assertThat(audit.shown().hasGlobalRecord()).isFalse();
        assertThat(audit.shown().checkpoint().records()).as("what EvalAI is shown").isEmpty();
        assertThat(audit(2, "150.0", 0, 1).problems()).last().asString()
                .contains("RouteScenario_0_rep0: score_composed is 150.0");
    }

    private static ResultsAudit audit(int expected, String composed, int... routes) {
        String records = IntStream.of(routes).mapToObj(route -> """
                {"index": %d, "route_id": "RouteScenario_%d_rep0", "status": "Completed", "num_infractions": 0,
                 "infractions": {}, "scores": {"score_route": 100.0, "score_penalty": 0.4, "score_composed": %s},
                 "meta": {"route_length": 750.0, "duration_game": 150.0, "duration_system": 300.0}}"""
                .formatted(route, route, composed)).collect(Collectors.joining(", "));
        String merged = """
                {"_checkpoint": {"global_record": {}, "progress": [%d, %d], "records": [%s]},
                 "entry_status": "Started", "eligible": false, "sensors": ["carla_camera"], "values": [], "labels": []}"""
                .formatted(routes.length, expected, records);
        return ResultsAudit.of(ResultsJson.parse(merged), OptionalInt.of(expected));
    }
}
