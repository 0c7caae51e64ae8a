package org.carla.leaderboard.domain.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.carla.leaderboard.domain.results.Routes.agent;
import static org.carla.leaderboard.domain.results.Routes.files;
import static org.carla.leaderboard.domain.results.Routes.ids;
import static org.carla.leaderboard.domain.results.Routes.perfect;
import static org.carla.leaderboard.domain.results.Routes.route;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Checkpoints a participant's code wrote to break the merge (issue 15): numbers that are not finite or out of range,
 * route ids that overflow or hold control characters, far too many records. None may reach EvalAI's files as a
 * number JSON does not have, or make the merge hang or run out of memory.
 */
class HostileRecordsTests {

    /** A strict reader, like EvalAI's: NaN and Infinity are not JSON. */
    private static final ObjectMapper STRICT = new ObjectMapper();

    @ParameterizedTest(name = "score_composed = {0}")
    @ValueSource(doubles = { Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e308, -5.0, 100.5 })
    void aRecordWithAnImpossibleScoreIsLeftOutAndNamed(double score) throws Exception {
        RouteRecord hostile = new RouteRecord(0, Routes.id(1, 0), "Perfect", 0, null,
                new RouteRecord.Scores(100.0, 1.0, score), new RouteRecord.Meta(1000.0, 10.0, 20.0));

        MergeResult result = CheckpointMerge.merge(files(agent(2, perfect(0, 0), hostile)), OptionalInt.of(2));

        assertThat(ids(result.merged())).containsExactly(Routes.id(0, 0));
        assertThat(result.routesDone()).isEqualTo(1);
        assertThat(result.globalResults()).isFalse();
        assertThat(result.refused()).isTrue();
        assertThat(result.problems()).singleElement().asString()
                .startsWith("route records refused, not counted: RouteScenario_1_rep0: score_composed is ")
                .endsWith(", not a number from 0 to 100.0");
        assertEveryNumberFinite(result.merged());
    }

    @Test
    void everyNumberOfTheRecordIsChecked() {
        List<RouteRecord> hostile = List.of(
                record(1, new RouteRecord.Scores(Double.NaN, 1.0, 50.0), new RouteRecord.Meta(1, 1, 1)),
                record(2, new RouteRecord.Scores(50.0, 1.5, 50.0), new RouteRecord.Meta(1, 1, 1)),
                record(3, new RouteRecord.Scores(50.0, 1.0, 50.0), new RouteRecord.Meta(1e308, 1, 1)),
                record(4, new RouteRecord.Scores(50.0, 1.0, 50.0), new RouteRecord.Meta(1, -1, 1)),
                record(5, new RouteRecord.Scores(50.0, 1.0, 50.0), new RouteRecord.Meta(1, 1, Double.NaN)),
                route(6, 0, "Completed", 100.0, 1.0, 10.0, 1.0, 1.0, "outside_route_lanes",
                        Routes.offRoad(Double.NaN)),
                route(7, 0, "Completed", 100.0, 1.0, 10.0, 1.0, 1.0, "outside_route_lanes",
                        "Agent went outside its route lanes for about 1e308 meters"));

        MergeResult result = CheckpointMerge.merge(files(agent(8, hostile.toArray(RouteRecord[]::new))),
                OptionalInt.of(8));

        assertThat(result.merged().checkpoint().records()).isEmpty();
        assertThat(result.problems()).singleElement().asString().contains(
                "RouteScenario_1_rep0: score_route is nan", "RouteScenario_2_rep0: score_penalty is 1.5",
                "RouteScenario_3_rep0: route_length is 1e+308", "RouteScenario_4_rep0: duration_game is -1.0",
                "RouteScenario_5_rep0: duration_system is nan",
                "RouteScenario_6_rep0: its first outside_route_lanes message has no distance",
                "RouteScenario_7_rep0: its first outside_route_lanes message has no distance");
    }

    @Test
    void theResultsFileNeverHoldsANumberJsonHasNot() throws Exception {
        // Every route there, one of them NaN: without the check the global record was NaN ("Driving score": NaN).
        MergeResult result = CheckpointMerge.merge(files(agent(2, perfect(0, 0),
                record(1, new RouteRecord.Scores(100.0, 1.0, Double.NaN), new RouteRecord.Meta(1, 1, 1)))),
                OptionalInt.empty());

        Map<String, String> texts = EvalAiFiles.texts(ResultsJson.write(result.merged()));

        for (String text : List.of(texts.get(EvalAiFiles.RESULTS), texts.get(EvalAiFiles.METADATA))) {
            assertThat(text).doesNotContain("NaN", "Infinity");
            STRICT.readTree(text);
        }
        assertThat(EvalAiFiles.snakeCaseAccuracies(texts.get(EvalAiFiles.RESULTS))).containsEntry("driving_score", 0.0);
        assertThat(result.routesDone()).isEqualTo(1);
    }

    @Test
    void theLargestRouteNumberDoesNotMakeTheMergeCountToIt() {
        // Route 2147483647 used to overflow the gap loop (route <= last; route++) and fill memory with "missing" ids.
        var records = new ArrayList<RouteRecord>();
        records.add(perfect(0, 0));
        records.add(new RouteRecord(0, "RouteScenario_2147483647_rep3", "Perfect", 0, null,
                new RouteRecord.Scores(100, 1, 100), new RouteRecord.Meta(1, 1, 1)));

        MergeResult result = CheckpointMerge.merge(files(agent(2, records.toArray(RouteRecord[]::new))),
                OptionalInt.of(2));

        assertThat(result.problems()).singleElement().asString()
                .startsWith("routes missing from the sequence RouteScenario_0_rep0 .. RouteScenario_2147483647_rep3: "
                        + "RouteScenario_0_rep1, RouteScenario_0_rep2, RouteScenario_0_rep3, RouteScenario_1_rep0")
                .endsWith(" and 8589934570 more");
    }

    @Test
    void controlCharactersInARouteIdAreRefusedAndShownEscaped() {
        RouteRecord bell = new RouteRecord(0, "RouteScenario_1_rep0\u0007\n\u001b[2J", "Perfect", 0, null,
                new RouteRecord.Scores(100, 1, 100), new RouteRecord.Meta(1, 1, 1));
        RouteRecord status = new RouteRecord(0, Routes.id(2, 0), "Perfect\r\nInjected", 0, null,
                new RouteRecord.Scores(100, 1, 100), new RouteRecord.Meta(1, 1, 1));

        MergeResult result = CheckpointMerge.merge(files(agent(3, perfect(0, 0), bell, status)), OptionalInt.of(3));

        assertThat(ids(result.merged())).containsExactly(Routes.id(0, 0));
        assertThat(result.problems()).singleElement().asString()
                .contains("RouteScenario_1_rep0\\u0007\\u000a\\u001b[2J: its route id is not printable ASCII")
                .contains("RouteScenario_2_rep0: its status is not printable ASCII")
                .doesNotContain("\n", "\u0007", "\r");
        assertThat(EvalAiFiles.texts(ResultsJson.write(result.merged())).get(EvalAiFiles.STDOUT))
                .doesNotContain("\u0007", "\u001b", "Injected");
    }

    @Test
    void aCheckpointWithFarMoreRecordsThanRoutesIsNotMerged() {
        var many = new RouteRecord[100_000];
        for (int i = 0; i < many.length; i++) {
            many[i] = perfect(i, 0);
        }

        MergeResult expected = CheckpointMerge.merge(files(agent(many.length, many), agent(2, perfect(0, 0))),
                OptionalInt.of(20));
        MergeResult unknown = CheckpointMerge.merge(files(agent(many.length, many)), OptionalInt.empty());

        assertThat(expected.routesDone()).isEqualTo(1);
        assertThat(expected.problems()).containsExactly("an agent's checkpoint holds 100000 route records, more than"
                + " the 20 routes of the submission: no data from it");
        assertThat(unknown.routesDone()).isZero();
        assertThat(unknown.problems()).singleElement().asString().contains("more than the 20000 a merge takes");
    }

    @Test
    void hugeAnnouncedTotalsDoNotOverflow() {
        var first = CheckpointFile.started(Routes.SENSORS, List.of(0, Integer.MAX_VALUE), List.of());
        var second = CheckpointFile.started(Routes.SENSORS, List.of(0, Integer.MAX_VALUE), List.of());
        var negative = CheckpointFile.started(Routes.SENSORS, List.of(0, -7), List.of());

        MergeResult result = CheckpointMerge.merge(files(first, second, negative), OptionalInt.empty());

        assertThat(result.routesTotal()).isEqualTo(Integer.MAX_VALUE);
        assertThat(result.globalResults()).isFalse();
    }

    @Test
    void anUnknownSensorNameIsShownPrintable() {
        var file = CheckpointFile.started(List.of("carla_camera", "evil\u001b]0;title\u0007"), List.of(1, 1),
                List.of(perfect(0, 0).withIndex(0)));

        String stdout = EvalAiFiles.texts(ResultsJson.write(CheckpointMerge.merge(files(file), OptionalInt.of(1))
                .merged())).get(EvalAiFiles.STDOUT);

        assertThat(stdout).contains("  - 1 evil\\u001b]0;title\\u0007\n").doesNotContain("\u001b");
    }

    private static RouteRecord record(int route, RouteRecord.Scores scores, RouteRecord.Meta meta) {
        return new RouteRecord(0, Routes.id(route, 0), "Completed", 0, null, scores, meta);
    }

    private static void assertEveryNumberFinite(CheckpointFile merged) throws Exception {
        String text = ResultsJson.write(merged);
        assertThat(text).doesNotContain("NaN", "Infinity");
        STRICT.readTree(text);
        Map<String, String> files = EvalAiFiles.texts(text);
        for (String json : List.of(files.get(EvalAiFiles.RESULTS), files.get(EvalAiFiles.METADATA))) {
            assertThat(json).doesNotContain("NaN", "Infinity");
            STRICT.readTree(json);
        }
    }
}
