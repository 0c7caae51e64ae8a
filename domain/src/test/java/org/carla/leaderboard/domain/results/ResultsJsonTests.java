package org.carla.leaderboard.domain.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

class ResultsJsonTests {

    @Test
    void writesTheLeaderboardsShape() throws Exception {
        CheckpointFile merged = CheckpointMerge.merge(CheckpointMergeTests.fourRoutesDone(), OptionalInt.of(4)).merged();

        JsonNode json = new ObjectMapper().readTree(ResultsJson.write(merged));

        assertThat(json.fieldNames()).toIterable()
                .containsExactly("_checkpoint", "entry_status", "eligible", "sensors", "values", "labels");
        assertThat(json.get("_checkpoint").fieldNames()).toIterable()
                .containsExactly("global_record", "progress", "records");
        JsonNode global = json.get("_checkpoint").get("global_record");
        assertThat(global.fieldNames()).toIterable().containsExactly("index", "route_id", "status", "infractions",
                "scores_mean", "scores_std_dev", "meta");
        assertThat(global.get("route_id").isInt()).isTrue();
        assertThat(global.get("scores_mean").fieldNames()).toIterable()
                .containsExactly("score_composed", "score_route", "score_penalty");
        assertThat(global.get("meta").get("exceptions").get(0).toString())
                .isEqualTo("[\"RouteScenario_2_rep0\",2,\"Failed - Agent got blocked\"]");
        assertThat(global.get("infractions").get("red_light").isDouble()).isTrue();
        JsonNode record = json.get("_checkpoint").get("records").get(0);
        assertThat(record.fieldNames()).toIterable().containsExactly("index", "route_id", "status", "num_infractions",
                "infractions", "scores", "meta");
        assertThat(record.get("scores").fieldNames()).toIterable()
                .containsExactly("score_route", "score_penalty", "score_composed");
        assertThat(record.get("meta").get("route_length").isDouble()).isTrue(); // 1000.0, a float in Python
        assertThat(json.get("eligible").isBoolean()).isTrue();
    }

    @Test
    void aMissingGlobalRecordIsAnEmptyObjectBothWays() {
        String text = ResultsJson.write(Routes.agent(2, Routes.perfect(0, 0)));

        assertThat(text).contains("\"global_record\": {},");
        assertThat(ResultsJson.parse(text).checkpoint().globalRecord()).isNull();
        assertThat(ResultsJson.parse(text)).isEqualTo(Routes.agent(2, Routes.perfect(0, 0)));
    }

    @Test
    void readsWhatPythonWrote() {
        // Integers where the evaluator left its defaults, an unknown field, non-ASCII escaped: all read.
        String python = """
                {"_checkpoint": {"global_record": {}, "progress": [1, 5], "records": [{"index": 0,
                 "route_id": "RouteScenario_3_rep0", "status": "Failed - Simulation crashed", "num_infractions": 0,
                 "infractions": {"collisions_layout": []}, "scores": {"score_route": 0, "score_penalty": 1.0,
                 "score_composed": 0.0}, "meta": {"route_length": 0, "duration_game": 0.0, "duration_system": 1e-05},
                 "extra": "caf\\u00e9"}]}, "entry_status": "Crashed", "eligible": false, "sensors": ["carla_camera"],
                 "values": [], "labels": []}
                """;

        CheckpointFile file = ResultsJson.parse(python);

        RouteRecord record = file.checkpoint().records().get(0);
        assertThat(record.scores().scoreRoute()).isZero();
        assertThat(record.meta().durationSystem()).isEqualTo(1e-05);
        assertThat(record.messages(Infraction.RED_LIGHT)).isEmpty();
        assertThat(file.checkpoint().progress()).containsExactly(1, 5);
        assertThat(file.entryStatus()).isEqualTo("Crashed");
    }

    @Test
    void aNonResultsFileIsNamedAsSuch() {
        assertThatThrownBy(() -> ResultsJson.parse("[1, 2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not a results file");
        assertThatThrownBy(() -> ResultsJson.parse(" ")).hasMessage("empty");
    }

    /** The text is Python's {@code json.dump(data, fd, indent=4)} of the same data, byte for byte. */
    @Test
    void theTextIsPythons(@TempDir Path dir) throws Exception {
        var odd = Routes.route(5, 0, "Failed - Agent's sensors were invalid", 1e-05, 1.0, 1e6, 0.1 + 0.2, 0.0,
                "route_dev", "Ünïcode and \"quotes\" and a tab\t");
        var file = CheckpointMerge.merge(Routes.files(
                Routes.agent(2, Routes.perfect(0, 0), Routes.perfect(1, 0)),
                Routes.agent(4, Routes.perfect(2, 0), Routes.perfect(3, 0), Routes.perfect(4, 0), odd)),
                OptionalInt.of(6)).merged();
        // An agent's own file is written as it is, whatever its numbers (the merge is what refuses them).
        var huge = Routes.agent(1, Routes.route(6, 0, "Perfect", 100.0, 1.0, 1e16, 1.0, 2.0));
        String ours = ResultsJson.write(List.of(file, huge));
        Files.writeString(dir.resolve("ours.json"), ours);

        String python = PythonOracle.run(dir, """
                import json, sys
                with open(sys.argv[0].replace('oracle.py', 'ours.json')) as f:
                    sys.stdout.write(json.dumps(json.load(f), indent=4))
                """, "");

        assertThat(ours).isEqualTo(python);
        assertThat(ours).contains("1e-05").contains("1e+16").contains("\\u00dcn\\u00efcode");
        assertThat(List.of(ours.split("\n"))).contains("        \"values\": [", "        \"labels\": [");
    }

    @Test
    void readsOnlyARegularFileOfBoundedSizeNeverThroughALink(@TempDir Path dir) throws Exception {
        Path outside = dir.resolve("outside.json");
        ResultsJson.write(outside, Routes.agent(1, Routes.perfect(0, 0)));
        Path link = Files.createSymbolicLink(dir.resolve("link.json"), outside);
        Path zero = Files.createSymbolicLink(dir.resolve("zero.json"), Path.of("/dev/zero"));
        Path big = dir.resolve("big.json");
        Files.write(big, new byte[(int) ResultsJson.MAX_FILE_BYTES + 1]);
        Path pipe = dir.resolve("pipe.json");
        assertThat(new ProcessBuilder("mkfifo", pipe.toString()).start().waitFor()).isZero();

        assertThat(ResultsJson.read(outside).checkpoint().records()).hasSize(1);
        for (Path hostile : List.of(link, zero, pipe)) {
            // Without the check, the link was followed, /dev/zero filled the memory, and the pipe blocked for ever.
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThatThrownBy(() -> ResultsJson.read(hostile))
                    .as(hostile.toString()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("not a regular file"));
        }
        assertThatThrownBy(() -> ResultsJson.read(big)).hasMessage("larger than 16 MiB");
    }

    @Test
    void writesReadableByEveryContainerAndReplacesALinkInsteadOfWritingThroughIt(@TempDir Path dir)
            throws Exception {
        Path target = Files.writeString(dir.resolve("someone-elses.txt"), "keep me");
        Path file = Files.createSymbolicLink(dir.resolve("results.json"), target);

        ResultsJson.writeText(file, "[]");

        assertThat(Files.isSymbolicLink(file)).isFalse();
        assertThat(Files.readString(file)).isEqualTo("[]");
        assertThat(Files.readString(target)).isEqualTo("keep me");
        // Files.createTempFile made 0600: the other containers of the pod (other users) could not read the file.
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-r--r--");
        try (var left = Files.list(dir)) {
            assertThat(left.map(path -> path.getFileName().toString()))
                    .containsExactlyInAnyOrder("results.json", "someone-elses.txt");
        }
    }
}
