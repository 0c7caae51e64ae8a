package org.carla.leaderboard.domain.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.carla.leaderboard.domain.results.Routes.agent;
import static org.carla.leaderboard.domain.results.Routes.files;
import static org.carla.leaderboard.domain.results.Routes.ids;
import static org.carla.leaderboard.domain.results.Routes.indexes;
import static org.carla.leaderboard.domain.results.Routes.offRoad;
import static org.carla.leaderboard.domain.results.Routes.perfect;
import static org.carla.leaderboard.domain.results.Routes.route;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointMergeTests {

    /** Two agents of two routes each; the expectations are worked out by hand in the comments. */
    static List<CheckpointFile> fourRoutesDone() {
        return files(
                agent(2,
                        route(1, 0, "Completed", 100.0, 0.6, 500.0, 50.0, 100.0,
                                "collisions_vehicle", "Agent collided against object with type=vehicle.tesla"),
                        route(0, 0, "Perfect", 100.0, 1.0, 1000.0, 100.0, 200.0)),
                agent(2,
                        route(2, 0, "Failed - Agent got blocked", 50.0, 0.65, 2000.0, 300.0, 600.0,
                                "vehicle_blocked", "Agent got blocked at (x=1, y=2, z=0)",
                                "collisions_layout", "Agent collided against object with type=static.prop"),
                        route(3, 0, "Completed", 100.0, 0.7, 1500.0, 150.0, 300.0,
                                "red_light", "Agent ran a red light 123",
                                "outside_route_lanes", offRoad(52.147))));
    }

    @Test
    void allRoutesDoneGivesTheGlobalRecord() {
        MergeResult result = CheckpointMerge.merge(fourRoutesDone(), OptionalInt.of(4));

        CheckpointFile merged = result.merged();
        assertThat(result.globalResults()).isTrue();
        assertThat(result.problems()).isEmpty();
        assertThat(result.invalidReason()).isEmpty();
        assertThat(ids(merged)).containsExactly("RouteScenario_0_rep0", "RouteScenario_1_rep0", "RouteScenario_2_rep0",
                "RouteScenario_3_rep0");
        assertThat(indexes(merged)).containsExactly(0, 1, 2, 3);
        assertThat(merged.checkpoint().progress()).containsExactly(4, 4);
        assertThat(merged.entryStatus()).isEqualTo("Finished");
        assertThat(merged.eligible()).isTrue();
        assertThat(merged.sensors()).isEqualTo(Routes.SENSORS);

        GlobalRecord global = merged.checkpoint().globalRecord();
        assertThat(global.status()).isEqualTo("Failed");
        // composed 100, 60, 32.5, 70 → 65.625; route 100, 100, 50, 100 → 87.5; penalty 1, .6, .65, .7 → 0.7375
        assertThat(global.scoresMean()).isEqualTo(new GlobalRecord.Scores(65.625, 87.5, 0.7375));
        // sqrt(Σ(x − mean)² / 3): composed sqrt(2329.6875 / 3) = 27.867, route 25.0, penalty 0.18
        assertThat(global.scoresStdDev()).isEqualTo(new GlobalRecord.Scores(27.867, 25.0, 0.18));
        // km driven = 1 × 1 + 0.5 × 1 + 2 × 0.5 + 1.5 × 1 = 4; one of each per 4 km; off-road 52.147 m = 0.052 km
        assertThat(global.infraction(Infraction.COLLISIONS_VEHICLE)).isEqualTo(0.25);
        assertThat(global.infraction(Infraction.COLLISIONS_LAYOUT)).isEqualTo(0.25);
        assertThat(global.infraction(Infraction.VEHICLE_BLOCKED)).isEqualTo(0.25);
        assertThat(global.infraction(Infraction.RED_LIGHT)).isEqualTo(0.25);
        assertThat(global.infraction(Infraction.OUTSIDE_ROUTE_LANES)).isEqualTo(0.052);
        assertThat(global.infraction(Infraction.COLLISIONS_PEDESTRIAN)).isZero();
        assertThat(global.infractions()).hasSize(12);
        assertThat(global.meta().totalLength()).isEqualTo(5000.0);
        assertThat(global.meta().durationGame()).isEqualTo(600.0);
        assertThat(global.meta().durationSystem()).isEqualTo(1200.0);
        assertThat(global.meta().exceptions()).containsExactly(
                new GlobalRecord.RouteException("RouteScenario_2_rep0", 2, "Failed - Agent got blocked"));

        assertThat(merged.values()).containsExactly("65.625", "87.5", "0.7375", "0.0", "0.25", "0.25", "0.25", "0.0",
                "0.052", "0.0", "0.0", "0.25", "0.0", "0.0", "0.0");
        assertThat(merged.labels()).first().isEqualTo("Avg. driving score");
        assertThat(merged.labels()).hasSize(15).last().isEqualTo("Min speed infractions");
    }

    @Test
    void routesStillRunningGiveNoGlobalRecord() {
        MergeResult result = CheckpointMerge.merge(files(
                agent(2, perfect(0, 0), perfect(1, 0)),
                agent(2, perfect(2, 0))), OptionalInt.of(4));

        assertThat(result.globalResults()).isFalse();
        assertThat(result.refused()).isFalse();
        assertThat(result.routesDone()).isEqualTo(3);
        assertThat(result.routesTotal()).isEqualTo(4);
        CheckpointFile merged = result.merged();
        assertThat(merged.hasGlobalRecord()).isFalse();
        assertThat(merged.entryStatus()).isEqualTo("Started");
        assertThat(merged.eligible()).isFalse();
        assertThat(merged.values()).isEmpty();
        assertThat(merged.checkpoint().progress()).containsExactly(3, 4);
    }

    @Test
    void repetitionsAreSortedByRouteThenRepetition() {
        MergeResult result = CheckpointMerge.merge(files(
                agent(3, perfect(1, 2), perfect(0, 0), perfect(1, 0)),
                agent(3, perfect(0, 2), perfect(1, 1), perfect(0, 1))), OptionalInt.of(6));

        assertThat(ids(result.merged())).containsExactly("RouteScenario_0_rep0", "RouteScenario_0_rep1",
                "RouteScenario_0_rep2", "RouteScenario_1_rep0", "RouteScenario_1_rep1", "RouteScenario_1_rep2");
        assertThat(indexes(result.merged())).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(result.globalResults()).isTrue();
        assertThat(result.merged().checkpoint().globalRecord().status()).isEqualTo("Perfect");
    }

    @Test
    void routeNumbersSortAsIntegersNotText() {
        MergeResult result = CheckpointMerge.merge(files(agent(3, perfect(10, 0), perfect(9, 0), perfect(8, 0))),
                OptionalInt.of(3));

        assertThat(ids(result.merged())).containsExactly("RouteScenario_8_rep0", "RouteScenario_9_rep0",
                "RouteScenario_10_rep0");
        assertThat(result.globalResults()).isTrue();
    }

    @Test
    void oneRouteHasNoStandardDeviation() {
        MergeResult result = CheckpointMerge.merge(
                files(agent(1, route(7, 0, "Completed", 80.0, 0.5, 2000.0, 10.0, 40.0))), OptionalInt.of(1));

        GlobalRecord global = result.merged().checkpoint().globalRecord();
        assertThat(global.scoresStdDev()).isEqualTo(new GlobalRecord.Scores(0, 0, 0));
        assertThat(global.scoresMean()).isEqualTo(new GlobalRecord.Scores(40.0, 80.0, 0.5));
        assertThat(global.status()).isEqualTo("Completed");
    }

    @Test
    void aCrashedRouteMakesTheEntryCrashed() {
        MergeResult result = CheckpointMerge.merge(files(
                agent(1, perfect(0, 0)),
                agent(1, route(1, 0, "Failed - Simulation crashed", 12.0, 1.0, 1000.0, 5.0, 10.0))),
                OptionalInt.of(2));

        assertThat(result.merged().entryStatus()).isEqualTo("Crashed");
        assertThat(result.merged().eligible()).isFalse();
        assertThat(result.merged().checkpoint().globalRecord().meta().exceptions())
                .extracting(GlobalRecord.RouteException::routeId).containsExactly("RouteScenario_1_rep0");
    }

    @Test
    void invalidSensorsRejectTheEntryAndTheLastSuchRouteDecides() {
        var sensors = route(1, 0, "Failed - Agent's sensors were invalid", 0.0, 1.0, 1000.0, 0.0, 0.0);
        var crashed = route(2, 0, "Failed - Simulation crashed", 0.0, 1.0, 1000.0, 0.0, 0.0);

        assertThat(CheckpointMerge.merge(files(agent(2, perfect(0, 0), sensors)), OptionalInt.of(2)).merged()
                .entryStatus()).isEqualTo("Rejected");
        assertThat(CheckpointMerge.merge(files(agent(3, perfect(0, 0), crashed, sensors)), OptionalInt.of(3))
                .merged().entryStatus()).isEqualTo("Crashed"); // route 2 sorts after route 1
    }

    @Test
    void aMissingAgentFileNeverGivesGlobalStatisticsOverFewerRoutes(@TempDir Path dir) throws Exception {
        Path first = dir.resolve("agent1/agent_results.json");
        Path second = dir.resolve("agent2/agent_results.json");
        ResultsJson.write(first, agent(2, perfect(0, 0), perfect(1, 0)));

        MergeResult expected = CheckpointMerge.mergeFiles(List.of(first, second), OptionalInt.of(4));
        assertThat(expected.globalResults()).isFalse();
        assertThat(expected.merged().checkpoint().progress()).containsExactly(2, 4);
        assertThat(expected.skippedInputs()).singleElement().asString().contains("agent2").contains("missing");

        // Without the expected total, as the Leaderboard's script: the global record covers the two routes found.
        MergeResult leaderboard = CheckpointMerge.mergeFiles(List.of(first, second), OptionalInt.empty());
        assertThat(leaderboard.globalResults()).isTrue();
        assertThat(leaderboard.merged().checkpoint().progress()).containsExactly(2, 2);
    }

    @Test
    void emptyAndUnparsableFilesCountAsNoData(@TempDir Path dir) throws Exception {
        Path good = dir.resolve("agent1.json");
        Path empty = dir.resolve("agent2.json");
        Path broken = dir.resolve("agent3.json");
        ResultsJson.write(good, agent(1, perfect(0, 0)));
        Files.writeString(empty, "");
        Files.writeString(broken, "{\"_checkpoint\": {\"records\": [");

        MergeResult result = CheckpointMerge.mergeFiles(List.of(good, empty, broken), OptionalInt.of(1));

        assertThat(result.globalResults()).isTrue();
        assertThat(result.skippedInputs()).hasSize(2);
        assertThat(result.skippedInputs().get(0)).contains("agent2.json").contains("empty");
        assertThat(result.skippedInputs().get(1)).contains("agent3.json").contains("not a results file");
    }

    @Test
    void noDataYetHasNoProgress() {
        MergeResult result = CheckpointMerge.merge(List.of(), OptionalInt.of(8));

        assertThat(result.merged().checkpoint().progress()).isEmpty();
        assertThat(result.routesDone()).isZero();
        assertThat(result.routesTotal()).isEqualTo(8);
        assertThat(result.globalResults()).isFalse();
    }

    @Test
    void duplicatedAndMissingRoutesAreRefusedByName() {
        MergeResult result = CheckpointMerge.merge(files(
                agent(2, perfect(0, 0), perfect(1, 0)),
                agent(2, perfect(1, 0), perfect(3, 0))), OptionalInt.of(4));

        assertThat(result.globalResults()).isFalse();
        assertThat(result.merged().hasGlobalRecord()).isFalse();
        assertThat(result.merged().entryStatus()).isEqualTo("Started");
        assertThat(result.problems()).containsExactly(
                "routes recorded more than once: RouteScenario_1_rep0 (2 records)",
                "routes missing from the sequence RouteScenario_0_rep0 .. RouteScenario_3_rep0: RouteScenario_2_rep0");
    }

    @Test
    void aGapInTheRepetitionsIsRefused() {
        MergeResult result = CheckpointMerge.merge(files(
                agent(2, perfect(0, 0), perfect(0, 1)),
                agent(2, perfect(1, 1), perfect(2, 0))), OptionalInt.of(4));

        assertThat(result.globalResults()).isFalse();
        assertThat(result.problems()).singleElement().asString()
                .endsWith(": RouteScenario_1_rep0, RouteScenario_2_rep1");
    }

    @Test
    void moreRecordsThanAnnouncedAreReportedWhenComplete() {
        MergeResult result = CheckpointMerge.merge(files(
                agent(1, perfect(0, 0)),
                agent(1, perfect(1, 0))), OptionalInt.of(3));
        assertThat(result.globalResults()).isFalse();
        assertThat(result.refused()).isFalse();

        MergeResult announced = CheckpointMerge.merge(files(agent(1, perfect(0, 0), perfect(1, 0))),
                OptionalInt.of(2));
        assertThat(announced.problems()).containsExactly("the agents' checkpoints announce 1 routes, the submission expects 2");
    }

    @Test
    void differentSensorsAreRefused() {
        var other = CheckpointFile.started(List.of("carla_camera"), List.of(1, 1), List.of(perfect(1, 0)));
        MergeResult result = CheckpointMerge.merge(files(agent(1, perfect(0, 0)), other), OptionalInt.of(2));

        assertThat(result.globalResults()).isFalse();
        assertThat(result.problems()).singleElement().asString().startsWith("two agents report different sensors");
        assertThat(result.merged().sensors()).isEqualTo(Routes.SENSORS);
    }

    @Test
    void validationMarksAnUnfinishedRouteInvalid() {
        var unfinished = new RouteRecord(0, Routes.id(1, 0), "Started", 0, null, null, null);
        MergeResult result = CheckpointMerge.merge(files(agent(2, perfect(0, 0), unfinished)), OptionalInt.of(2));

        assertThat(result.globalResults()).isTrue();
        assertThat(result.merged().entryStatus()).isEqualTo("Invalid");
        assertThat(result.merged().eligible()).isFalse();
        assertThat(result.invalidReason()).contains("Found a route record with missing data");
    }

    @Test
    void validationWantsSensors() {
        var noSensors = CheckpointFile.started(List.of(), List.of(1, 1), List.of(perfect(0, 0)));
        MergeResult result = CheckpointMerge.merge(files(noSensors), OptionalInt.of(1));

        assertThat(result.merged().entryStatus()).isEqualTo("Invalid");
        assertThat(result.invalidReason()).contains("Missing 'sensors' data");
    }

    @Test
    void hundredsOfRoutes() {
        var first = new java.util.ArrayList<RouteRecord>();
        var second = new java.util.ArrayList<RouteRecord>();
        for (int route = 0; route < 300; route++) {
            (route % 2 == 0 ? first : second).add(route(route, 0, "Completed", 100.0, 0.5, 1000.0, 10.0, 20.0,
                    "red_light", "Agent ran a red light"));
        }
        MergeResult result = CheckpointMerge.merge(files(
                agent(150, first.toArray(RouteRecord[]::new)),
                agent(150, second.toArray(RouteRecord[]::new))), OptionalInt.of(300));

        assertThat(result.globalResults()).isTrue();
        assertThat(indexes(result.merged())).hasSize(300).startsWith(0, 1, 2).endsWith(299);
        GlobalRecord global = result.merged().checkpoint().globalRecord();
        assertThat(global.scoresMean().scoreComposed()).isEqualTo(50.0);
        assertThat(global.infraction(Infraction.RED_LIGHT)).isEqualTo(1.0);
        assertThat(global.meta().totalLength()).isCloseTo(300_000.0, within(1e-6));
    }
}
