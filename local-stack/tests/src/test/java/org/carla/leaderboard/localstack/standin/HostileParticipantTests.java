package org.carla.leaderboard.localstack.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.core.JsonToken;

/** Each hostile action leaves in the logs volume exactly what the campaign of issue 15 left there. */
class HostileParticipantTests {

    @TempDir
    Path temp;

    private Path logs;
    private Path outside;
    private Path checkpoint;
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();

    @BeforeEach
    void volume() throws IOException {
        logs = Files.createDirectories(temp.resolve("volumes/logs"));
        outside = temp.resolve("containers/agent-1");
        for (String folder : List.of("agent/agent1", "simulator", "logcopy", "containers-status", "evalai")) {
            Files.createDirectories(logs.resolve(folder));
        }
        checkpoint = logs.resolve("agent/agent1/agent_results.json");
        Files.writeString(checkpoint, "{\"_checkpoint\": {\"progress\": [1, 4], \"records\": []},"
                + " \"entry_status\": \"Started\", \"eligible\": false}");
        Files.writeString(logs.resolve("evalai/stdout.txt"), "logcopy's stdout\n");
        Files.writeString(logs.resolve("simulator/simulator1.log"), "CARLA's own log\n");
    }

    private HostileParticipant hostile(String actions) {
        Map<String, String> env = new HashMap<>(Map.of(HostileParticipant.KNOB, actions, "LOGS_DIR", logs.toString(),
                "WORKER_ID", "1", "WORKER_PAIRS", "2", HostileParticipant.OUTSIDE, outside.toString()));
        return HostileParticipant.of(env, checkpoint, new PrintStream(stdout, true, StandardCharsets.UTF_8));
    }

    @Test
    void forgesTheStatusFilesOfEveryPairTheCancelAndLogcopysDone() throws IOException {
        hostile("forge-agent-done,forge-simulator-done,forge-cancel,forge-logcopy-done").actOnVolume();

        Path status = logs.resolve("containers-status");
        for (String name : List.of("agent-1.done", "agent-2.done", "simulator-1.done", "simulator-2.done",
                "simulation.cancel", "logcopy.done")) {
            assertThat(status.resolve(name)).as(name).isRegularFile();
        }
    }

    @Test
    void makesLogcopysDoneFileALinkToAFileOutsideTheVolume() throws IOException {
        hostile("logcopy-done-symlink").actOnVolume();

        Path done = logs.resolve("containers-status/logcopy.done");
        assertThat(Files.isSymbolicLink(done)).isTrue();
        assertThat(Files.readSymbolicLink(done)).isEqualTo(outside.resolve(HostileParticipant.BAIT));
        assertThat(outside.resolve(HostileParticipant.BAIT)).content().contains("must keep this text");
    }

    @Test
    void putsAFifoAtEvalAisStdout() throws IOException {
        Files.createDirectories(logs.resolve("evalai"));
        Files.writeString(logs.resolve("evalai/stdout.txt"), "logcopy's file\n");

        hostile("evalai-fifo").actOnVolume();

        var attributes = Files.readAttributes(logs.resolve("evalai/stdout.txt"), BasicFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
        assertThat(attributes.isOther()).as("a FIFO is neither file, folder nor link").isTrue();
        assertThat((Integer) Files.getAttribute(logs.resolve("evalai/stdout.txt"), "unix:mode") & 0170000)
                .isEqualTo(0010000);
        try (var names = Files.list(logs.resolve("evalai"))) {
            assertThat(names).as("nothing left beside it").containsExactly(logs.resolve("evalai/stdout.txt"));
        }
    }

    @Test
    void replacesTheEvalAiFolderByALinkToAFolderOutsideTheVolume() throws IOException {
        // logcopy's folder, with the files it wrote
        Files.writeString(Files.createDirectories(logs.resolve("evalai")).resolve("stdout.txt"), "logcopy's\n");
        try (var before = Files.list(logs)) {
            var namesBefore = before.map(Path::getFileName).toList();

            hostile("evalai-symlink-outside").actOnVolume();

            try (var after = Files.list(logs)) {
                assertThat(after.map(Path::getFileName)).as("nothing left beside it")
                        .containsExactlyInAnyOrderElementsOf(namesBefore);
            }
        }
        Path evalai = logs.resolve("evalai");
        assertThat(Files.isSymbolicLink(evalai)).isTrue();
        assertThat(Files.readSymbolicLink(evalai)).isEqualTo(outside.resolve(HostileParticipant.OUTSIDE_EVALAI));
        assertThat(outside.resolve(HostileParticipant.OUTSIDE_EVALAI)).isEmptyDirectory();
    }

    @Test
    void writesTheSimulatorsLogAFileWithAnOverlongKeyAndATenMegabyteLine() throws IOException {
        hostile("write-simulator-log,long-s3-key,log-line-10mb").actOnVolume();

        assertThat(logs.resolve("simulator/simulator1.log")).content().startsWith("forged by the participant");
        try (var files = Files.walk(logs.resolve("agent/agent1"))) {
            Path longest = files.filter(path -> path.getFileName().toString().equals("x.txt")).findFirst().orElseThrow();
            String key = "412977/" + logs.relativize(longest);
            assertThat(key.getBytes(StandardCharsets.UTF_8).length).isGreaterThan(1024);
        }
        String[] lines = stdout.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines[0]).hasSize(HostileParticipant.TEN_MEGABYTES).matches("x+");
    }

    @Test
    void replacesTheCheckpointByALinkToAResultsFileOutsideTheVolume() throws IOException {
        hostile("results-symlink-outside").replaceCheckpoint();

        assertThat(Files.isSymbolicLink(checkpoint)).isTrue();
        Path target = Files.readSymbolicLink(checkpoint);
        assertThat(target).isEqualTo(outside.resolve(HostileParticipant.OUTSIDE_RESULTS));
        assertThat(ResultsJson.read(target).checkpoint().progress()).containsExactly(1, 4);
        assertThat(target).content().contains("\"secret\": \"read from outside the logs volume\"");
    }

    @Test
    void replacesTheCheckpointByALinkToDevZero() throws IOException {
        hostile("results-symlink-dev-zero").replaceCheckpoint();

        assertThat(Files.readSymbolicLink(checkpoint)).isEqualTo(Path.of("/dev/zero"));
    }

    @Test
    void writesACheckpointOfAHundredThousandRoutes() throws IOException {
        hostile("checkpoint-100k-routes").replaceCheckpoint();

        int records = 0;
        try (var json = ResultsJson.mapper().getFactory().createParser(checkpoint.toFile())) {
            for (JsonToken token = json.nextToken(); token != null; token = json.nextToken()) {
                if (token == JsonToken.FIELD_NAME && "route_id".equals(json.currentName())) {
                    records++;
                }
            }
        }
        assertThat(records).isEqualTo(100_000);
        assertThat(Files.size(checkpoint)).isGreaterThan(10_000_000);
    }

    @Test
    void changesTheScoresAndIdsOfTheRecordsItLetsBeWritten() {
        RouteRecord record = HostileParticipant.claimed("RouteScenario_3_rep0", 0);

        assertThat(hostile("score-nan").record(record).scores().scoreComposed()).isNaN();
        assertThat(hostile("score-infinity").record(record).scores().scoreRoute()).isInfinite().isPositive();
        assertThat(hostile("score-negative-infinity").record(record).scores().scorePenalty()).isInfinite()
                .isNegative();
        assertThat(hostile("score-huge").record(record).scores().scoreComposed()).isEqualTo(1e308);
        assertThat(hostile("score-negative").record(record).scores().scoreComposed()).isNegative();
        assertThat(hostile("route-id-control-chars").record(record).routeId())
                .isEqualTo("RouteScenario_3\u0000\u0007\u001b[2J\r\n\u007f_rep0");
        HostileParticipant overflow = hostile("route-id-overflow");
        assertThat(overflow.record(record).routeId()).isEqualTo("RouteScenario_2147483647_rep0");
        assertThat(overflow.record(HostileParticipant.claimed("RouteScenario_4_rep0", 1)).routeId())
                .isEqualTo("RouteScenario_4_rep0");
        assertThat(hostile("").record(record)).isEqualTo(record);
    }

    @Test
    void refusesAnUnknownActionNamingTheKnownOnes() {
        assertThatThrownBy(() -> hostile("forge-agent-done,steal-routes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown action 'steal-routes'").hasMessageContaining("claim-all-routes");
    }
}
