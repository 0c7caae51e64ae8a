package org.carla.leaderboard.domain.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.carla.leaderboard.domain.results.Routes.offRoad;
import static org.carla.leaderboard.domain.results.Routes.route;

import java.math.BigDecimal;
import java.util.List;

import org.junit.jupiter.api.Test;

class GlobalStatisticsTests {

    @Test
    void aTinyMeanIsWrittenAsPythonWritesIt() {
        // (0.0001 + 0) / 2 = 5e-05: Python's str() switches to exponent notation below 1e-04.
        var records = List.of(
                route(0, 0, "Failed - Agent timed out", 0.01, 0.01, 1000.0, 1.0, 1.0),
                route(1, 0, "Failed - Agent timed out", 0.0, 1.0, 1000.0, 1.0, 1.0));

        GlobalResults results = GlobalStatistics.compute(records, 2);

        assertThat(results.record().scoresMean().scoreComposed()).isEqualTo(5e-05);
        assertThat(results.values().get(0)).isEqualTo("5e-05");
        assertThat(results.values().get(1)).isEqualTo("0.005");
    }

    @Test
    void meansRoundHalfEvenOnTheBinaryValue() {
        // 87.6543215 is stored just below the half: 87.654321 with Python's round(x, 6), 87.654322 with half-up.
        var records = List.of(route(0, 0, "Completed", 87.6543215, 1.0, 1000.0, 1.0, 1.0));

        GlobalResults results = GlobalStatistics.compute(records, 1);

        assertThat(new BigDecimal(87.6543215)).isLessThan(new BigDecimal("87.6543215"));
        assertThat(results.record().scoresMean().scoreRoute()).isEqualTo(87.654321);
        assertThat(results.values().get(1)).isEqualTo("87.654321");
    }

    @Test
    void theMeanIsTheSumOfTheQuotientsInRouteOrder() {
        // Python adds score / T route by route: 0.1/3 + 0.2/3 + 0.3/3 is not (0.1 + 0.2 + 0.3) / 3 in floats, but
        // both round to the same 6 digits; the unrounded sums of durations show the order instead.
        var records = List.of(
                route(0, 0, "Perfect", 100.0, 1.0, 0.1, 0.1, 1.0),
                route(1, 0, "Perfect", 100.0, 1.0, 0.2, 0.2, 1.0),
                route(2, 0, "Perfect", 100.0, 1.0, 0.3, 0.3, 1.0));

        GlobalRecord global = GlobalStatistics.compute(records, 3).record();

        assertThat(global.meta().totalLength()).isEqualTo(0.6000000000000001); // ((0 + 0.1) + 0.2) + 0.3
        assertThat(PythonFloat.str(global.meta().durationGame())).isEqualTo("0.6000000000000001");
    }

    @Test
    void infractionsArePerKilometreDrivenWithAFloor() {
        // No route completed anything: km driven is the floor 0.001, so one collision is 1000 per km.
        var records = List.of(route(0, 0, "Failed - Agent got blocked", 0.0, 0.5, 1000.0, 1.0, 1.0,
                "collisions_pedestrian", "Agent collided against object with type=walker",
                "outside_route_lanes", offRoad(12.3456),
                "outside_route_lanes", offRoad(999.0)));

        GlobalRecord global = GlobalStatistics.compute(records, 1).record();

        assertThat(global.infraction(Infraction.COLLISIONS_PEDESTRIAN)).isEqualTo(1000.0);
        // Only the first off-road message counts, in km, not divided by the km driven.
        assertThat(global.infraction(Infraction.OUTSIDE_ROUTE_LANES)).isEqualTo(0.012);
    }

    @Test
    void statusDowngradesFromPerfectToCompletedToFailed() {
        assertThat(GlobalStatistics.compute(List.of(Routes.perfect(0, 0)), 1).record().status()).isEqualTo("Perfect");
        assertThat(GlobalStatistics.compute(List.of(Routes.perfect(0, 0),
                route(1, 0, "Completed", 100.0, 0.7, 1.0, 1.0, 1.0)), 2).record().status()).isEqualTo("Completed");
        var failedFirst = GlobalStatistics.compute(List.of(
                route(0, 0, "Failed", 10.0, 1.0, 1.0, 1.0, 1.0).withIndex(0),
                route(1, 0, "Completed", 100.0, 0.7, 1.0, 1.0, 1.0).withIndex(1)), 2).record();
        assertThat(failedFirst.status()).isEqualTo("Failed");
        assertThat(failedFirst.meta().exceptions())
                .containsExactly(new GlobalRecord.RouteException("RouteScenario_0_rep0", 0, "Failed"));
    }

    @Test
    void anUnreadableOffRoadMessageNamesTheRoute() {
        var records = List.of(route(4, 0, "Completed", 100.0, 1.0, 1.0, 1.0, 1.0, "outside_route_lanes", "off road"));

        assertThatThrownBy(() -> GlobalStatistics.compute(records, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RouteScenario_4_rep0");
    }

    @Test
    void entryStatusOfTheEvaluatorsOwnCheckpoint() {
        // The evaluator's flow: records, then the global results, then the validation (crashed runs skip progress).
        var file = Routes.agent(2, Routes.perfect(0, 0), Routes.perfect(1, 0));
        CheckpointFile finished = CheckpointValidation.validated(
                file.withGlobalResults(GlobalStatistics.compute(file.checkpoint().records(), 2)), true, false);
        assertThat(finished.entryStatus()).isEqualTo("Finished");
        assertThat(finished.eligible()).isTrue();

        var short1 = CheckpointFile.started(Routes.SENSORS, List.of(1, 2), List.of(Routes.perfect(0, 0)));
        var withGlobal = short1.withGlobalResults(GlobalStatistics.compute(short1.checkpoint().records(), 2));
        assertThat(CheckpointValidation.problem(withGlobal, true, false))
                .contains("'progress' data doesn't match its expected value");
        assertThat(CheckpointValidation.problem(withGlobal, true, true)).isEmpty();
    }
}
