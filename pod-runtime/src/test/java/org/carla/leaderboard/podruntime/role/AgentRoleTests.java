package org.carla.leaderboard.podruntime.role;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.GlobalStatistics;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.TerminationSignal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentRoleTests {

    @TempDir
    Path temp;

    private final Fakes.Status status = new Fakes.Status();
    private final Fakes.Starter runner = new Fakes.Starter();
    private final TerminationSignal termination = TerminationSignal.none();
    private final List<Boolean> resumes = new ArrayList<>();
    private boolean carlaUp = true;

    private int run(boolean resumeSubmission, String maxIdle) throws InterruptedException {
        PairSettings settings = PairSettings.from(Map.of("WORKER_ID", "1", "PARTNER_WAIT", "0.3", "MAX_IDLE", maxIdle,
                "LOGS_DIR", temp.toString()));
        return new AgentRole(settings, resume -> {
            resumes.add(resume);
            return new ChildSpec("evaluator", List.of("python3", "leaderboard_evaluator.py"), Optional.empty(), Map.of(),
                    Optional.empty());
        }, resumeSubmission, checkpoint(), () -> carlaUp, status, status, runner, termination).run();
    }

    private Path checkpoint() {
        return temp.resolve("agent_results.json");
    }

    private void writeResults(boolean withGlobalRecord) {
        RouteRecord record = new RouteRecord(0, "RouteScenario_0_rep0", "Perfect", 0, RouteRecord.emptyInfractions(),
                new RouteRecord.Scores(100, 1, 100), new RouteRecord.Meta(1000, 100, 200));
        CheckpointFile file = CheckpointFile.started(List.of("carla_camera"), List.of(1, 1), List.of(record));
        ResultsJson.write(checkpoint(), withGlobalRecord ? file.withGlobalResults(GlobalStatistics.compute(List.of(record), 1))
                : file);
    }

    @Test
    void anEvaluatorThatFinishesWithAGlobalRecordMeansDone() throws Exception {
        status.then(s -> {
            writeResults(true);
            runner.child.exit = 0;
        }).then(s -> s.with("simulator-1.done"));

        assertThat(run(false, "800")).isZero();
        assertThat(status.posted).containsExactly("agent-1.done");
        assertThat(resumes).containsExactly(false);
    }

    @Test
    void resultsWithoutAGlobalRecordAreACrash() throws Exception {
        status.then(s -> {
            writeResults(false);
            runner.child.exit = 0;
        }).then(s -> s.with("simulator-1.crash0"));

        assertThat(run(false, "800")).isEqualTo(1);
        assertThat(status.posted).containsExactly("agent-1.crash0");
    }

    @Test
    void unparsableOrMissingResultsAreACrash() throws Exception {
        Files.writeString(checkpoint(), "{\"_checkpoint\": ");
        status.then(s -> runner.child.exit = 255);

        assertThat(run(false, "800")).isEqualTo(1);
        assertThat(status.posted).containsExactly("agent-1.crash0");
        Files.delete(checkpoint());
        assertThat(ResultsCheck.problem(checkpoint())).get().asString().contains("no results file");
    }

    @Test
    void aCrashFileOfThePreviousAttemptMeansResumeAndTheNextIndex() throws Exception {
        status.with("agent-1.crash0", "simulator-1.crash0", "agent-1.crash1", "simulator-1.crash1")
                .then(s -> runner.child.exit = 255);

        assertThat(run(false, "800")).isEqualTo(1);
        assertThat(resumes).containsExactly(true);
        assertThat(status.posted).containsExactly("agent-1.crash2");
    }

    @Test
    void resumeOfTheSubmissionResumesTheFirstAttemptToo() throws Exception {
        status.then(s -> runner.child.exit = 255);
        run(true, "800");
        assertThat(resumes).containsExactly(true);
    }

    @Test
    void aSimulatorCrashOfThisAttemptStopsTheEvaluator() throws Exception {
        status.with("simulator-1.crash0").then(s -> s.with("simulator-1.crash1"));
        status.with("agent-1.crash0");

        assertThat(run(false, "800")).isEqualTo(1);
        assertThat(runner.child.stopped).isTrue();
        assertThat(status.posted).containsExactly("agent-1.crash1");
    }

    @Test
    void anIdleEvaluatorIsStopped() throws Exception {
        runner.child.lastOutput = Instant.now().minusSeconds(5);

        assertThat(run(false, "2")).isEqualTo(1);
        assertThat(runner.child.stopped).isTrue();
        assertThat(status.posted).containsExactly("agent-1.crash0");
    }

    @Test
    void cancelStopsTheEvaluatorAndExitsZero() throws Exception {
        status.then(s -> s.with("simulation.cancel"));

        assertThat(run(false, "800")).isZero();
        assertThat(runner.child.stopped).isTrue();
        assertThat(status.posted).isEmpty();
    }

    @Test
    void carlaThatNeverAcceptsIsACrashAfterTheBoundedWait() throws Exception {
        carlaUp = false;

        assertThat(run(false, "800")).isEqualTo(1);
        assertThat(runner.started).isEmpty();
        assertThat(status.posted).containsExactly("agent-1.crash0");
    }
}
