package org.carla.leaderboard.podruntime.results;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.podruntime.cli.EvalAiFilesCommand;
import org.carla.leaderboard.podruntime.cli.MergeResultsCommand;
import org.carla.leaderboard.podruntime.results.ResultsRefresh.AgentFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

class ResultsCommandsTests {

    static CheckpointFile agent(int total, int... routes) {
        var records = new ArrayList<RouteRecord>();
        for (int route : routes) {
            records.add(new RouteRecord(records.size(), "RouteScenario_" + route + "_rep0", "Completed", 0,
                    RouteRecord.emptyInfractions(), new RouteRecord.Scores(100.0, 0.8, 80.0),
                    new RouteRecord.Meta(1000.0, 50.0, 100.0)));
        }
        return CheckpointFile.started(List.of("carla_camera", "carla_gnss"), List.of(routes.length, total), records);
    }

    private static int run(Object command, String... args) {
        return new CommandLine(command).execute(args);
    }

    @Test
    void mergesTheAgentsFilesWithTheGlobalResults(@TempDir Path dir) throws Exception {
        Path first = dir.resolve("agent1.json");
        Path second = dir.resolve("agent2.json");
        ResultsJson.write(first, agent(2, 0, 1));
        ResultsJson.write(second, agent(2, 3, 2));
        Path merged = dir.resolve("out/agent_results.json");

        int exit = run(new MergeResultsCommand(), "--file-paths", first.toString(), second.toString(),
                "--endpoint", merged.toString(), "--expected-routes", "4");

        assertThat(exit).isZero();
        CheckpointFile file = ResultsJson.read(merged);
        assertThat(file.checkpoint().progress()).containsExactly(4, 4);
        assertThat(file.checkpoint().records()).extracting(RouteRecord::routeId).containsExactly(
                "RouteScenario_0_rep0", "RouteScenario_1_rep0", "RouteScenario_2_rep0", "RouteScenario_3_rep0");
        assertThat(file.values()).startsWith("80.0", "100.0", "0.8");
        assertThat(file.entryStatus()).isEqualTo("Finished");
    }

    @Test
    void aMissingFileIsNoDataAndTheExpectedTotalHoldsTheGlobalResultsBack(@TempDir Path dir) throws Exception {
        Path first = dir.resolve("agent1.json");
        ResultsJson.write(first, agent(2, 0, 1));
        Path merged = dir.resolve("merged.json");

        int exit = run(new MergeResultsCommand(), "-f", first.toString(), dir.resolve("agent2.json").toString(),
                "-e", merged.toString(), "--expected-routes", "4");

        assertThat(exit).isZero();
        CheckpointFile file = ResultsJson.read(merged);
        assertThat(file.hasGlobalRecord()).isFalse();
        assertThat(file.checkpoint().progress()).containsExactly(2, 4);
    }

    @Test
    void aRefusalExitsOneAndNamesTheRoutes(@TempDir Path dir) throws Exception {
        Path first = dir.resolve("agent1.json");
        Path second = dir.resolve("agent2.json");
        ResultsJson.write(first, agent(2, 0, 1));
        ResultsJson.write(second, agent(2, 1, 3));
        var err = new java.io.ByteArrayOutputStream();
        PrintStream original = System.err;
        int exit;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            exit = run(new MergeResultsCommand(), "-f", first.toString(), second.toString(), "-e",
                    dir.resolve("merged.json").toString());
        } finally {
            System.setErr(original);
        }

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("RouteScenario_1_rep0 (2 records)")
                .contains("RouteScenario_2_rep0");
        assertThat(ResultsJson.read(dir.resolve("merged.json")).hasGlobalRecord()).isFalse();
    }

    @Test
    void writesTheThreeEvalAiFiles(@TempDir Path dir) throws Exception {
        Path merged = dir.resolve("merged.json");
        ResultsJson.write(merged, agent(3, 0, 1));
        Path out = dir.resolve("evalai");

        assertThat(run(new EvalAiFilesCommand(), "--file-path", merged.toString(), "--out-dir", out.toString()))
                .isZero();

        assertThat(Files.readString(out.resolve(EvalAiFiles.STDOUT))).contains("- Completed 2 out of the 3 routes");
        assertThat(EvalAiFiles.snakeCaseAccuracies(Files.readString(out.resolve(EvalAiFiles.RESULTS))))
                .containsEntry("driving_score", 0.0);
        assertThat(Files.readString(out.resolve(EvalAiFiles.METADATA))).isEqualTo(Files.readString(merged));
    }

    @Test
    void refreshNamesOnlyWhatChanged() {
        var refresh = new ResultsRefresh(1, OptionalInt.of(2));

        ResultsRefresh.Refreshed first = refresh.refresh(List.of(AgentFile.of(ResultsJson.write(agent(2, 0)))));
        ResultsRefresh.Refreshed same = refresh.refresh(List.of(AgentFile.of(ResultsJson.write(agent(2, 0)))));
        ResultsRefresh.Refreshed done = refresh.refresh(List.of(AgentFile.of(ResultsJson.write(agent(2, 0, 1)))));

        assertThat(first.changed()).isEqualTo(ResultsRefresh.FILES);
        assertThat(first.files().keySet()).containsExactly("agent_results.json", "evalai/results.json",
                "evalai/stdout.txt", "evalai/metadata.json");
        assertThat(same.changed()).isEmpty();
        assertThat(same.resultsDigest()).isEqualTo(first.resultsDigest());
        assertThat(done.result().globalResults()).isTrue();
        assertThat(done.changed()).isEqualTo(ResultsRefresh.FILES);
        assertThat(done.resultsDigest()).isEqualTo(ResultsRefresh.digest(done.files().get("evalai/results.json")))
                .isNotEqualTo(first.resultsDigest());
    }

    @Test
    void anAgentFileCaughtHalfWrittenKeepsItsLastCompleteContent() {
        var refresh = new ResultsRefresh(2, OptionalInt.of(6));
        assertThat(refresh.refresh(List.of(AgentFile.of(ResultsJson.write(agent(3, 0, 1))), AgentFile.missing()))
                .result().routesDone()).isEqualTo(2);

        String text = ResultsJson.write(agent(3, 0, 1, 2));
        var halfWritten = refresh.refresh(List.of(AgentFile.of(text.substring(0, text.length() / 2)),
                AgentFile.missing())).result();
        assertThat(halfWritten.routesDone()).isEqualTo(2);
        assertThat(halfWritten.skippedInputs()).singleElement().asString().contains("agent2").contains("missing");

        assertThat(refresh.refresh(List.of(AgentFile.of(text), AgentFile.missing())).result().routesDone())
                .isEqualTo(3);
        assertThat(refresh.refresh(List.of(AgentFile.missing(), AgentFile.missing())).result().routesDone())
                .isZero();
    }

    @Test
    void anUnusableAgentFileIsNoDataAndSaysWhy() {
        var refresh = new ResultsRefresh(1, OptionalInt.of(3));
        refresh.refresh(List.of(AgentFile.of(ResultsJson.write(agent(3, 0, 1)))));

        var result = refresh.refresh(List.of(AgentFile.unusable("agent/agent1/agent_results.json is a symbolic link")))
                .result();

        assertThat(result.routesDone()).isZero();
        assertThat(result.skippedInputs()).containsExactly("agent/agent1/agent_results.json is a symbolic link");
    }
}
