package org.carla.leaderboard.podruntime.role;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.EntryStatus;
import org.carla.leaderboard.domain.results.GlobalStatistics;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.TerminationSignal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AgentRoleTests {

    @TempDir
    Path temp;

    private final Fakes.Status status = new Fakes.Status();
    private final Fakes.Starter runner = new Fakes.Starter(status.clock);
    private final TerminationSignal termination = TerminationSignal.none();
    private final List<Boolean> resumes = new ArrayList<>();
    private boolean carlaUp = true;

    private Optional<Path> evaluatorLog = Optional.empty();

    private int run(boolean resumeSubmission, String maxIdle) throws InterruptedException {
        PairSettings settings = PairSettings.from(Map.of("WORKER_ID", "1", "PARTNER_WAIT", "0.3", "MAX_IDLE", maxIdle));
        return new PairSupervisor(Role.AGENT, settings, Fakes.parts(status, runner, termination)).run(
                new AgentRole(settings, resume -> {
                    resumes.add(resume);
                    return new ChildSpec("evaluator", List.of("python3", "leaderboard_evaluator.py"), Optional.empty(),
                            Map.of(), evaluatorLog);
                }, resumeSubmission, checkpoint(), () -> carlaUp));
    }

    private Path checkpoint() {
        return temp.resolve("agent_results.json");
    }

    private static RouteRecord route(int route) {
        return new RouteRecord(route, "RouteScenario_" + route + "_rep0", "Perfect", 0, RouteRecord.emptyInfractions(),
                new RouteRecord.Scores(100, 1, 100), new RouteRecord.Meta(1000, 100, 200));
    }

    private void writeResults(boolean withGlobalRecord) {
        RouteRecord record = route(0);
        CheckpointFile file = CheckpointFile.started(List.of("carla_camera"), List.of(1, 1), List.of(record));
        ResultsJson.write(checkpoint(), withGlobalRecord ? file.withGlobalResults(GlobalStatistics.compute(List.of(record), 1))
                : file);
    }

    /** What an evaluator killed while driving its third route of five leaves: two finished routes, entry Started. */
    private static CheckpointFile twoOfFive() {
        return CheckpointFile.started(List.of("carla_camera"), List.of(2, 5), List.of(route(0), route(1)));
    }

    @Test
    void anEvaluatorThatFinishesWithAGlobalRecordMeansDone() throws Exception {
        status.then(s -> {
            writeResults(true);
            runner.child.exit = 0;
        }).then(s -> s.with("simulator-1.done")).thenThePodEnds(termination);

        assertThat(run(false, "800")).isZero();
        assertThat(status.posted).containsExactly("agent-1.done");
        assertThat(resumes).containsExactly(false);
        assertThat(status.script).as("held until the pod ended").isEmpty();
    }

    @Test
    void theCheckpointIsLeftReadableByTheOtherContainers() throws Exception {
        // a participant's umask 077 (or a writer through a 0600 temporary file): logcopy could not merge it
        status.then(s -> {
            writeResults(true);
            setMode(checkpoint(), "rw-------");
            runner.child.exit = 0;
        }).then(s -> s.with("simulator-1.done")).thenThePodEnds(termination);

        assertThat(run(false, "800")).isZero();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(checkpoint()))).isEqualTo("rw-r--r--");
    }

    private static void setMode(Path path, String mode) {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
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
    void theVerdictIsWrittenInTheEvaluatorsLogWhichTheParticipantIsShown() throws Exception {
        // A checkpoint linked out of the volume (issue 15): the participant sees why in the log logcopy uploads.
        Path log = Files.writeString(temp.resolve("leaderboard.log"), "Route 0 finished\n");
        evaluatorLog = Optional.of(log);
        Files.createSymbolicLink(checkpoint(), Files.writeString(temp.resolve("elsewhere.json"), "{}"));
        status.then(s -> runner.child.exit = 0).then(s -> s.with("simulator-1.crash0"));

        assertThat(run(false, "800")).isEqualTo(1);
        assertThat(status.posted).containsExactly("agent-1.crash0");
        assertThat(Files.readString(log)).startsWith("Route 0 finished\n").contains(
                "# agent-1 attempt 1 ended: wrote agent-1.crash0; reason: ",
                "results file " + checkpoint() + " is unusable: not a regular file");
    }

    @Test
    void aLogThatIsALinkIsNotWrittenThroughAndTheVerdictStillStands() throws Exception {
        Path target = Files.writeString(temp.resolve("not-yours.txt"), "untouched");
        Path log = Files.createSymbolicLink(temp.resolve("leaderboard.log"), target);
        evaluatorLog = Optional.of(log);
        writeResults(true);
        status.then(s -> runner.child.exit = 0).then(s -> s.with("simulator-1.done")).thenThePodEnds(termination);

        assertThat(run(false, "800")).isZero();
        assertThat(status.posted).containsExactly("agent-1.done");
        assertThat(Files.readString(target)).isEqualTo("untouched");
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
        runner.child.lastOutput = status.clock.instant().minusSeconds(5);

        assertThat(run(false, "2")).isEqualTo(1);
        assertThat(runner.child.stopped).isTrue();
        assertThat(status.posted).containsExactly("agent-1.crash0");
    }

    @Test
    void cancelStopsTheEvaluatorAndExitsZero() throws Exception {
        status.then(s -> s.with("simulation.cancel")).thenThePodEnds(termination);

        assertThat(run(false, "800")).isZero();
        assertThat(runner.child.stopped).isTrue();
        assertThat(status.posted).isEmpty();
        assertThat(status.script).as("held until the pod ended").isEmpty();
    }

    @Test
    void anEvaluatorThatDiesOfTheCancelIsNoCrash() throws Exception {
        // The simulator saw simulation.cancel first and stopped CARLA; the evaluator lost it and died, and this
        // container looked at the status files just before the cancel file was there.
        status.then(s -> {
            runner.child.exit = 1;
            s.appearingAfterTheNextLook.add("simulation.cancel");
        }).thenThePodEnds(termination);

        assertThat(run(false, "800")).isZero();
        assertThat(status.posted).isEmpty();
    }

    @Test
    void carlaThatNeverAcceptsIsACrashAfterTheBoundedWait() throws Exception {
        carlaUp = false;

        assertThat(run(false, "800")).isEqualTo(1);
        assertThat(runner.started).isEmpty();
        assertThat(status.posted).containsExactly("agent-1.crash0");
    }

    @Test
    void finishedRoutesOnDiskAreResumedWithoutACrashFile() throws Exception {
        // SIGKILL, OOM or eviction: the earlier attempt wrote no crash file, but its routes are in the checkpoint
        ResultsJson.write(checkpoint(), twoOfFive());
        status.then(s -> runner.child.exit = 255);

        assertThat(run(false, "800")).isEqualTo(1);
        assertThat(resumes).containsExactly(true);
        assertThat(status.posted).containsExactly("agent-1.crash0");
    }

    @ParameterizedTest
    @ValueSource(strings = { "invalid entry", "crashed on its only route", "no route finished", "unreadable" })
    void aCheckpointTheEvaluatorWouldNotResumeStartsFresh(String checkpoint) throws Exception {
        switch (checkpoint) {
            case "invalid entry" -> ResultsJson.write(checkpoint(), twoOfFive().withEntryStatus(EntryStatus.INVALID));
            case "crashed on its only route" -> ResultsJson.write(checkpoint(), CheckpointFile.started(
                    List.of("carla_camera"), List.of(1, 5), List.of(route(0))).withEntryStatus(EntryStatus.CRASHED));
            case "no route finished" -> ResultsJson.write(checkpoint(), CheckpointFile.started(List.of("carla_camera"),
                    List.of(0, 5), List.of()));
            default -> Files.writeString(checkpoint(), "{\"_checkpoint\": {\"progress\": [2, 5], \"records\": [");
        }
        status.then(s -> runner.child.exit = 255);

        run(false, "800");
        assertThat(resumes).containsExactly(false);
    }

    @Test
    void theSeedsTenMinuteWaitsPassWithoutSleeping() throws Exception {
        carlaUp = false;
        PairSettings settings = PairSettings.from(Map.of("WORKER_ID", "1"));
        java.time.Instant start = status.clock.instant();

        int exit = new PairSupervisor(Role.AGENT, settings, Fakes.parts(status, runner, termination))
                .run(new AgentRole(settings, resume -> null, false, checkpoint(), () -> carlaUp));

        assertThat(exit).isEqualTo(1);
        assertThat(java.time.Duration.between(start, status.clock.instant()))
                .as("CARLA's wait, then the simulator's answer: ten minutes each").isGreaterThan(
                        java.time.Duration.ofMinutes(20));
        assertThat(status.posted).containsExactly("agent-1.crash0");
    }
}
