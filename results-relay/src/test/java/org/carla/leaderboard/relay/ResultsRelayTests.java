package org.carla.leaderboard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.RunImages.ContainerImage;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.results.Metric;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** A submission's life as EvalAI and the submissions table see it, from the events the relay consumes. */
@QuarkusTest
@RelayStack
class ResultsRelayTests {

    static final long SENSORS = 2077;
    static final long MAP = 2078;
    static final long SENSORS_QUALIFIER = 2075;
    static final long MAP_QUALIFIER = 2076;
    static final Duration PATIENCE = Duration.ofSeconds(20);

    static final String DIGEST = "sha256:" + "c0".repeat(32);

    static final Map<String, Double> RESULTS = Map.of("driving_score", 41.25, "route_completion", 77.5);

    @InjectLocalStack
    RunningStack stack;

    @Inject
    TestClock clock;

    @Test
    void aFinishedSubmissionReachesEvalAiAndItsRecord() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).podRan(new RunImages(1, List.of(
                new ContainerImage("job-r1-abcde", "agent-1", "team/agent:latest", "docker.io/team/agent@" + DIGEST),
                new ContainerImage("job-r1-abcde", "simulator-1", "carlasim/carla:0.9.15",
                        "docker.io/carlasim/carla@" + DIGEST))));
        // What run 1's init read in the Leaderboard image.
        var versions = new RunVersions(1, Optional.of("1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"), Optional.of("0.9.13"),
                Optional.of("0.9.15"), Optional.of("0.9.15"));
        given.put(SubmissionLayout.runVersionsPath(1), versions.json());
        var started = given.jobStarted();
        given.send(started);
        await().atMost(PATIENCE).until(() -> "RUNNING".equals(given.recordStatus()));
        given.report(given.progress(1, 2));
        clock.minutesUntil(() -> "partially_evaluated".equals(given.onEvalAi().status()));
        // the record's progress is written right after EvalAI's update
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(given.record().get("results_location"))
                .isNotNull().extracting(AttributeValue::s).isEqualTo("s3://" + given.bucket + "/" + given.id() + "/"));
        assertThat(given.record().get("start_time").s()).isEqualTo(started.podStartedAt().toString());

        given.allDone();
        given.send(given.succeeded());

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        var onEvalAi = given.onEvalAi();
        assertThat(onEvalAi.status()).isEqualTo("finished");
        assertThat(onEvalAi.statusHistory()).containsSubsequence("running", "partially_evaluated", "finished");
        assertThat(onEvalAi.jobNames()).containsExactly(given.jobName());
        assertThat(onEvalAi.result()).contains("\"Driving score\": 41.25").contains("\"Agent blocked\": 0.86");
        assertThat(onEvalAi.stdout()).isEqualTo(given.stdout()).contains("All 2 route have been completed");
        assertThat(onEvalAi.stderr()).isEmpty();
        assertThat(onEvalAi.metadata()).contains("\"entry_status\"").as("what ran, exactly").contains("\"images\":{"
                + "\"run\":1,\"containers\":[{\"pod\":\"job-r1-abcde\",\"container\":\"agent-1\",\"image\":"
                + "\"team/agent:latest\",\"image_id\":\"docker.io/team/agent@" + DIGEST + "\"},{\"pod\":\"job-r1-abcde\","
                + "\"container\":\"simulator-1\"");
        assertThat(onEvalAi.metadata()).as("what it drove with").contains("\"versions\":{\"run\":1,\"leaderboard\":"
                + "\"1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d\",\"scenario_runner\":\"0.9.13\",\"carla_python_api\":\"0.9.15\","
                + "\"carla_server\":\"0.9.15\"}");

        var record = given.record();
        assertThat(record.get("submission_status").s()).isEqualTo("FINISHED");
        assertThat(record).containsKey("end_time");
        assertThat(record.get("driving_score").n()).isEqualTo("41.25");
        assertThat(record.get("off-road_infractions").n()).isEqualTo("0.052");
        assertThat(record.get("agent_blocked").n()).isEqualTo("0.86");
        assertThat(record.get("collisions_pedestrians").n()).isEqualTo("0.0");
        assertThat(record.get(SubmissionTable.RUN_VERSIONS)).isEqualTo(versions.attribute());
        for (Metric metric : Metric.values()) {
            assertThat(record).as("attribute %s", metric.attribute()).containsKey(metric.attribute());
        }
    }

    @Test
    void aFailedSubmissionTellsWhyWithTheTailOfTheFailingContainersLog() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of())
                .statusFiles("agent-1.done", "simulator-1.done", "agent-2.crash0", "agent-2.crash1", "simulator-2.crash0")
                .log("agent/agent2/leaderboard.log", "agent2", 400)
                .log("agent/agent1/leaderboard.log", "agent1", 10)
                .log("simulator/simulator2.log", "carla2", 5);

        given.send(given.jobFinished(JobFinished.Outcome.FAILED, "BackoffLimitExceeded", List.of(
                new ContainerOutcome("agent-1", 0, 0, "Completed", null),
                new ContainerOutcome("agent-2", 4, 1, "Error", null),
                new ContainerOutcome("simulator-2", 4, 1, "Error", null),
                new ContainerOutcome("logcopy", 0, null, null, null))));

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        var onEvalAi = given.onEvalAi();
        assertThat(onEvalAi.status()).isEqualTo("failed");
        assertThat(onEvalAi.stderr())
                .startsWith("The submission failed: its containers failed more often than the track allows")
                .contains("=== agent-2 (exit code 1, Error, restarted 4 times) ===")
                .contains("agent2 line 400\n").contains("agent2 line 351\n").doesNotContain("agent2 line 350\n")
                .contains("=== simulator-2").contains("carla2 line 5")
                .doesNotContain("agent1 line");
        assertThat(onEvalAi.stderr().length()).isLessThan(20_000);
        assertThat(onEvalAi.stdout()).isEqualTo(given.stdout()).contains("Completed 1 out of the 2 routes");
        assertThat(given.recordStatus()).isEqualTo("FAILED");
    }

    @Test
    void aRunOfTwoPodsNamesEachFailingContainersPodShowsItsOwnLogAndCountsEveryPodsTimeOnItsNode() {
        var given = GivenSubmission.submitted(stack, SENSORS).inPod(0, 2).results(Map.of()).allDone()
                .inPod(1, 2).statusFiles("agent-1.crash0", "simulator-1.done");
        given.log("pod-1/agent/agent1/leaderboard.log", "pod1 agent", 30)
                .log("pod-0/agent/agent1/leaderboard.log", "pod0 agent", 30)
                .log("agent/agent1/leaderboard.log", "a participant's file at the root", 30);
        Instant start = TestClock.now().minusSeconds(660);
        // g5.12xlarge (4 GPUs): pod 0 held its node 300 s, pod 1 until the Job's end 600 s: 4 x 900 s = 1 GPU-hour.
        given.send(given.jobFinished(JobFinished.Outcome.FAILED, "BackoffLimitExceeded", List.of(
                new ContainerOutcome("agent-1", 0, 0, "Completed", start.plusSeconds(290)).inPod(0),
                new ContainerOutcome("agent-1", 4, 1, "Error", null).inPod(1),
                new ContainerOutcome("logcopy", 0, 0, "Completed", null).inPod(1)),
                List.of(new JobFinished.PodSpan(0, "r1-0-abcde", start, start.plusSeconds(300)),
                        new JobFinished.PodSpan(1, "r1-1-fghij", start, null))));

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        assertThat(given.onEvalAi().stderr())
                .contains("=== pod 1 agent-1 (exit code 1, Error, restarted 4 times) ===\n")
                .contains("pod1 agent line 30\n")
                .doesNotContain("pod0 agent", "participant's file", "=== pod 0");
        assertThat(Double.parseDouble(given.record().get("gpu_hours").n())).isCloseTo(1.0, within(0.001));
    }

    @Test
    void eachRunsGpuHoursAreAddedToTheRecordAndShownInTheMetadata() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of()).podRan(new RunImages(1, List.of(
                new ContainerImage("job-r1-abcde", "agent-1", "team/agent:latest", "docker.io/team/agent@" + DIGEST))));
        given.put(SubmissionLayout.runVersionsPath(1), new RunVersions(1, Optional.empty(), Optional.of("0.9.13"),
                Optional.empty(), Optional.empty()).json());
        // Run 1: both pairs of the g5.12xlarge (4 GPUs, 2 per pair) ran the Job's 600 s: 4 x 600 s = 0.667 GPU-hours.
        given.send(given.jobFinished(JobFinished.Outcome.FAILED, "DeadlineExceeded", List.of()));
        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        assertThat(Double.parseDouble(given.record().get("gpu_hours").n())).isCloseTo(0.6667, within(0.001));
        stack.evalAi().resume(given.pk());
        given.resumed().results(RESULTS).allDone();

        // Run 2: pair 1 ended after 300 s, pair 2 with the Job after 600 s: 2 x 300 + 2 x 600 = 0.5 GPU-hours.
        var finished = given.jobFinished(JobFinished.Outcome.SUCCEEDED, null, List.of());
        Instant pairOneEnd = finished.startedAt().plusSeconds(300);
        given.send(given.jobFinished(JobFinished.Outcome.SUCCEEDED, null, List.of(
                new ContainerOutcome("agent-1", 0, 0, "Completed", pairOneEnd),
                new ContainerOutcome("simulator-1", 0, 0, "Completed", pairOneEnd.minusSeconds(5))),
                finished.finishedAt()));

        clock.minutesUntil(() -> "finished".equals(given.onEvalAi().status()));
        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        assertThat(Double.parseDouble(given.record().get("gpu_hours").n())).isCloseTo(1.1667, within(0.001));
        assertThat(given.onEvalAi().metadata()).contains("\"gpu_hours\":{\"run\":2,\"this_run\":0.5,\"all_runs\":1.167}")
                .as("run 1's images are not run 2's").doesNotContain("\"images\"")
                .as("nor its versions").doesNotContain("\"versions\"");
        assertThat(given.record().get(SubmissionTable.RUN_VERSIONS).m().get("run").n())
                .as("the record's versions say whose they are: run 1's, which run 2 did not replace").isEqualTo("1");
    }

    @Test
    void aTrackThatHidesLogsSaysWhyButShowsNoLog() {
        var given = GivenSubmission.submitted(stack, MAP).results(Map.of())
                .log("agent/agent1/leaderboard.log", "secret", 20);

        given.send(given.jobFinished(JobFinished.Outcome.FAILED, "DeadlineExceeded",
                List.of(new ContainerOutcome("agent-1", 0, 137, "Error", null))));

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        assertThat(given.onEvalAi().stderr()).contains("longer than the track's deadline")
                .contains("not shown to participants").doesNotContain("secret");
    }

    @Test
    void aSubmissionCancelledBeforeLaunchIsReportedCancelled() {
        var given = GivenSubmission.submitted(stack, SENSORS);

        given.send(given.notLaunched(NotLaunched.Reason.CANCELLED));

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        assertThat(given.onEvalAi().status()).isEqualTo("cancelled");
        var record = given.record();
        assertThat(record.get("submission_status").s()).isEqualTo("CANCELLED");
        assertThat(record.get("driving_score").s()).isEqualTo("-");
        assertThat(record.get("agent_blocked").s()).isEqualTo("-");
    }

    @Test
    void aSubmissionCancelledOnEvalAiDuringTheRunIsStoppedThroughTheControlObject() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of());
        given.send(given.jobStarted());
        await().atMost(PATIENCE).until(() -> "RUNNING".equals(given.recordStatus()));
        given.report(given.progress(1, 2));
        clock.minutesUntil(() -> "partially_evaluated".equals(given.onEvalAi().status()));
        int partialsBefore = EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).size();

        stack.evalAi().cancel(given.pk());
        given.report(given.progress(2, 2));

        String control = given.id() + "/control/cancel";
        // Noticed at the run's next list, a minute after its last.
        clock.minutesUntil(() -> stack.s3().listObjectsV2(r -> r.bucket(given.bucket).prefix(control))
                .keyCount() == 1);
        assertThat(EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk())).hasSize(partialsBefore);
        assertThat(given.onEvalAi().status()).isEqualTo("cancelled");

        // logcopy saw the control object, wrote the cancel status file and uploaded; the Job ended.
        given.statusFiles(StatusFiles.SIMULATION_CANCEL, "agent-1.done", "simulator-1.done");
        given.send(given.succeeded());

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        assertThat(given.recordStatus()).isEqualTo("CANCELLED");
        assertThat(given.onEvalAi().status()).isEqualTo("cancelled");
    }

    @Test
    void aSubmissionCancelledOnEvalAiBeforeItsJobStartedIsNotMarkedRunning() {
        var given = GivenSubmission.submitted(stack, SENSORS);
        stack.evalAi().cancel(given.pk());

        given.send(given.jobStarted());

        String control = given.id() + "/control/cancel";
        // Noticed at the run's first list, a minute after its submission.
        clock.minutesUntil(() -> stack.s3().listObjectsV2(r -> r.bucket(given.bucket).prefix(control))
                .keyCount() == 1);
        assertThat(EvalAiCalls.runningUpdates(stack.evalAi().calls(), given.pk())).isEmpty();
        assertThat(given.onEvalAi().status()).isEqualTo("cancelled");
        assertThat(given.record().get("job_name").s()).isEqualTo(given.jobName());
        assertThat(given.record().get("cancel_requested_run").n()).isEqualTo("1");
    }

    @Test
    void aTeamWithoutTheQualifierIsToldToRunItFirst() {
        var given = GivenSubmission.submitted(stack, SENSORS);

        given.send(given.notLaunched(NotLaunched.Reason.NOT_ALLOWED));

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        var onEvalAi = given.onEvalAi();
        String message = "You are not allowed to submit to this track. Please, run the qualifier track first.";
        assertThat(onEvalAi.status()).isEqualTo("failed");
        assertThat(onEvalAi.stdout()).contains(message);
        assertThat(onEvalAi.stderr()).contains(message);
        assertThat(given.recordStatus()).isEqualTo("FAILED");
    }

    @Test
    void aPassedQualifierOpensTheTrackAndCongratulates() {
        var given = GivenSubmission.submitted(stack, SENSORS_QUALIFIER)
                .results(Map.of("driving_score", 12.5, "route_completion", 64.0))
                .allDone();

        given.send(given.succeeded());

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        var onEvalAi = given.onEvalAi();
        assertThat(onEvalAi.status()).isEqualTo("finished");
        assertThat(onEvalAi.stdout()).startsWith("Congratulations!")
                .containsPattern("driving_score\\s+12\\.500\\s+5\\.000\\s+passed")
                .containsPattern("route_completion\\s+64\\.000\\s+20\\.000\\s+passed")
                .endsWith(given.stdout());
        assertThat(qualification(given)).containsEntry("submission_id", AttributeValue.fromS(given.id()));
    }

    @Test
    void aQualifierBelowAThresholdDoesNotOpenTheTrack() {
        var given = GivenSubmission.submitted(stack, SENSORS_QUALIFIER)
                .results(Map.of("driving_score", 4.0, "route_completion", 64.0))
                .allDone();

        given.send(given.succeeded());

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        var onEvalAi = given.onEvalAi();
        assertThat(onEvalAi.status()).isEqualTo("finished");
        assertThat(onEvalAi.stdout()).startsWith("Your submission did not pass the SENSORS_QUALIFIER qualifier")
                .containsPattern("driving_score\\s+4\\.000\\s+5\\.000\\s+not passed");
        assertThat(qualification(given)).isEmpty();
    }

    private Map<String, AttributeValue> qualification(GivenSubmission given) {
        return stack.dynamoDb().getItem(r -> r.tableName(stack.evaluation().qualifierTable()).consistentRead(true)
                .key(Map.of("team_id", AttributeValue.fromS(Long.toString(given.identity.teamId())),
                        "track_codename", AttributeValue.fromS("SENSORS")))).item();
    }

    static boolean isTrue(AttributeValue value) {
        return value != null && Boolean.TRUE.equals(value.bool());
    }
}
