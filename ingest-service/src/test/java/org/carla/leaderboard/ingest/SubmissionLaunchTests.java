package org.carla.leaderboard.ingest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** EvalAI announces a submission; the intake records it and asks job-launcher to run it. */
@QuarkusTest
class SubmissionLaunchTests extends IntakeOnTheStack {

    @Test
    void announcedSubmissionIsRecordedAndLaunched() {
        long team = IntakeStack.uniqueTeam();
        double launchedBefore = IntakeStack.metric("ingest_submissions_launched_total", "resume", "false");
        var submission = stack.evalAi().createSubmission(
                NewSubmission.of(team, "Team Ünïcode <&> 🚗", IntakeStack.OPEN_PHASE, IntakeStack.IMAGE));

        LaunchRequest request = intake.awaitLaunchRequests(1).get(0);

        assertThat(request.submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(request.submission().challengePk()).isEqualTo(submission.challengePk());
        assertThat(request.submission().phasePk()).isEqualTo(1187);
        assertThat(request.submission().teamId()).isEqualTo(team);
        assertThat(request.submission().teamName()).isEqualTo("Team Ünïcode <&> 🚗");
        assertThat(request.submission().leaderboard()).isEqualTo("leaderboard-10");
        assertThat(request.submission().track()).isEqualTo("SENSORS");
        assertThat(request.imageUri()).isEqualTo(IntakeStack.IMAGE);
        assertThat(request.resume()).isFalse();
        assertThat(request.run()).isEqualTo(1);
        assertThat(request.trackSpec().renderer()).isEqualTo("opengl");
        assertThat(request.trackSpec().routes()).isEqualTo(20);
        assertThat(request.trackSpec().workerPairs()).isEqualTo(4);
        assertThat(request.trackSpec().bucket()).as("the bucket deploy/aws creates, as the ConfigMap names it")
                .isEqualTo(stack.evaluation().leaderboards().get("leaderboard-10").bucket())
                .startsWith("carla-leaderboard-10-");

        var record = intake.record("leaderboard-10", team, submission.pk());
        assertThat(record.get("team_id").s()).isEqualTo(Long.toString(team));
        assertThat(record.get("submission_id").s()).isEqualTo(Long.toString(submission.pk()));
        assertThat(record.get("team_name").s()).isEqualTo("Team Ünïcode <&> 🚗");
        assertThat(record.get("submission_status").s()).isEqualTo("SUBMITTED");
        assertThat(record.get("track_id").s()).isEqualTo("1187");
        assertThat(record.get("track_name").s()).isEqualTo("SENSORS");
        assertThat(record.get("submitted_image_uri").s()).isEqualTo(IntakeStack.IMAGE);
        assertThat(record.get("parallelization_workers").n()).isEqualTo("4");
        assertThat(record.get("parallelization_pods").n()).as("the seeds' layout: one pod").isEqualTo("1");
        assertThat(Instant.parse(record.get("submitted_time").s())).isEqualTo(submission.submittedAt());
        assertThat(record.get("start_time").s()).isEqualTo("-");
        assertThat(record.get("end_time").s()).isEqualTo("-");
        assertThat(record.get("run").n()).isEqualTo("1");
        assertThat(record.get("challenge_id").s()).isEqualTo(Long.toString(submission.challengePk()));
        assertThat(record.get("leaderboard").s()).isEqualTo("leaderboard-10");
        assertThat(record.get("expected_routes").n()).isEqualTo("20");
        assertThat(record.get("instance_type").s()).isEqualTo("g5.12xlarge");
        assertThat(record.get("status_history").l()).singleElement().satisfies(entry -> {
            assertThat(entry.m().get("status").s()).isEqualTo("SUBMITTED");
            assertThat(entry.m().get("run").n()).isEqualTo("1");
            assertThat(entry.m().get("by").s()).isEqualTo("ingest-service");
        });

        intake.assertNothingOn(QueuesConfig.SUBMISSION_EVENTS);
        intake.assertNoDeadLetters();
        assertThat(IntakeStack.metric("ingest_submissions_launched_total", "resume", "false"))
                .isEqualTo(launchedBefore + 1);
        assertThat(IntakeStack.metric("ingest_submissions_handling_seconds_count", "outcome", "launched"))
                .isPositive();
    }

    @Test
    void pksSentAsStringsAreTakenAsNumbers() {
        long team = IntakeStack.uniqueTeam();
        // A gated track: the team passed its qualifier.
        intake.qualify(team, "MAP");
        var submission = stack.evalAi().createSubmission(
                NewSubmission.of(team, "strings", 2078, IntakeStack.IMAGE).withPksAsStrings(true));

        LaunchRequest request = intake.awaitLaunchRequests(1).get(0);

        assertThat(request.submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(request.submission().track()).isEqualTo("MAP");
        assertThat(request.trackSpec().renderer()).isEqualTo("vulkan");
    }

    @Test
    void evalAiFailingTwiceIsRetriedAndTheSubmissionLaunched() {
        long team = IntakeStack.uniqueTeam();
        stack.evalAi().failNext(2, 503, "GET", "/api/jobs/submission/");
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "patient", 1188, IntakeStack.IMAGE));

        LaunchRequest request = intake.awaitLaunchRequests(1).get(0);

        assertThat(request.submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(stack.evalAi().calls()).filteredOn(c -> c.path().equals("/api/jobs/submission/" + submission.pk()))
                .extracting(c -> c.status()).containsExactly(503, 503, 200);
        intake.assertNoDeadLetters();
    }

    @Test
    void evalAiDownLongerThanTheClientRetriesReturnsTheMessageAndLosesNothing() {
        long team = IntakeStack.uniqueTeam();
        // Five attempts per handling: the first handling fails entirely, the message comes back after the back-off.
        stack.evalAi().failNext(6, 502, "GET", "/api/jobs/submission/");
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "stubborn", 1187, IntakeStack.IMAGE));

        LaunchRequest request = intake.awaitLaunchRequests(1).get(0);

        assertThat(request.submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(stack.evalAi().calls()).filteredOn(c -> c.path().equals("/api/jobs/submission/" + submission.pk()))
                .extracting(c -> c.status()).containsExactly(502, 502, 502, 502, 502, 502, 200);
        intake.assertNoDeadLetters();
    }

    @Test
    void evalAiAnswering503LongerThanTheFormerRetryBudgetDelaysTheLaunchAndDeadLettersNothing() {
        // The whole budget before: 5 receives of 5 client attempts, then the announcement was dead-lettered.
        ridesOutAnEvalAiOutage(() -> stack.evalAi().failFor(Duration.ofMinutes(10), 503), 25);
    }

    @Test
    void evalAiNotAnsweringDelaysTheLaunchAndDeadLettersNothing() {
        // No answer: every attempt of a handling ends at the client's read timeout (2 s in the tests), and the
        // announcement comes back for another handling.
        ridesOutAnEvalAiOutage(() -> stack.evalAi().hangFor(Duration.ofMinutes(10)), 5);
    }

    @Test
    void evalAiThrottlingDelaysTheLaunchAndDeadLettersNothing() {
        ridesOutAnEvalAiOutage(() -> stack.evalAi().throttleFor(Duration.ofMinutes(10), Duration.ofSeconds(1)), 5);
    }

    /**
     * EvalAI fails until the announcement's calls pass {@code callsBefore}: meanwhile the service says it is degraded
     * (gauge, wellness) without leaving service (live, ready) and launches nothing; once EvalAI is back the submission
     * is launched, and nothing was dead-lettered.
     */
    private void ridesOutAnEvalAiOutage(Runnable outage, int callsBefore) {
        double deadLetteredBefore = IntakeStack.metric("leaderboard_queue_dead_lettered_total", "queue",
                QueuesConfig.SUBMISSIONS);
        outage.run();
        var submission = stack.evalAi().createSubmission(
                NewSubmission.of(IntakeStack.uniqueTeam(), "patient", IntakeStack.OPEN_PHASE, IntakeStack.IMAGE));
        String path = "/api/jobs/submission/" + submission.pk();

        await().atMost(Duration.ofSeconds(120))
                .until(() -> stack.evalAi().calls().stream().filter(c -> c.path().equals(path)).count() > callsBefore);
        assertThat(IntakeStack.metric("leaderboard_dependency_up", "dependency", "evalai")).isZero();
        given().get("/q/health/well").then().statusCode(503)
                .body("checks.find { it.name == 'dependencies' }.data.evalai", startsWith("down since "));
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/health/live").then().statusCode(200);
        intake.assertNothingOn(QueuesConfig.LAUNCH_REQUESTS);

        stack.evalAi().clearFaults();

        assertThat(intake.awaitLaunchRequests(1).get(0).submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(IntakeStack.metric("leaderboard_dependency_up", "dependency", "evalai")).isEqualTo(1.0);
        given().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'dependencies' }.data.evalai", equalTo("up"));
        intake.assertNoDeadLetters();
        assertThat(IntakeStack.metric("leaderboard_queue_dead_lettered_total", "queue", QueuesConfig.SUBMISSIONS))
                .isEqualTo(deadLetteredBefore);
    }

    /**
     * A host token whose user is not a host of the challenge (EvalAI answers its read 401, "not authorized to access
     * this submission") is a configuration error: the announcement waits on its queue, never dead-lettered, and the
     * service says so (wellness evalai-token, its gauge) while EvalAI itself answers; once the user is a host again, the
     * submission is launched.
     */
    @Test
    void aTokenThatIsNotAHostOfTheChallengeHoldsTheAnnouncementAndSaysSoUntilItIs() {
        stack.evalAi().hostOfChallenge(false);
        try {
            var submission = stack.evalAi().createSubmission(
                    NewSubmission.of(IntakeStack.uniqueTeam(), "held", IntakeStack.OPEN_PHASE, IntakeStack.IMAGE));
            String path = "/api/jobs/submission/" + submission.pk();

            await().atMost(Duration.ofSeconds(60)).until(() -> stack.evalAi().calls().stream()
                    .anyMatch(call -> call.path().equals(path) && call.status() == 401));
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> given().get("/q/health/well").then()
                    .statusCode(503).body("checks.find { it.name == 'dependencies' }.data.'evalai-token'",
                            org.hamcrest.Matchers.containsString("not authorized")));
            assertThat(IntakeStack.metric("leaderboard_dependency_up", "dependency", "evalai-token")).isZero();
            assertThat(IntakeStack.metric("leaderboard_dependency_up", "dependency", "evalai")).isEqualTo(1.0);
            intake.assertNothingOn(QueuesConfig.LAUNCH_REQUESTS);

            stack.evalAi().hostOfChallenge(true);

            assertThat(intake.awaitLaunchRequests(1).get(0).submission().submissionPk()).isEqualTo(submission.pk());
            intake.assertNoDeadLetters();
            given().get("/q/health/well").then().statusCode(200)
                    .body("checks.find { it.name == 'dependencies' }.data.'evalai-token'", equalTo("up"));
        } finally {
            stack.evalAi().hostOfChallenge(true);
        }
    }

    @Test
    void resumedSubmissionIsLaunchedAgainWithResume() throws Exception {
        long team = IntakeStack.uniqueTeam();
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "again", 1187, IntakeStack.IMAGE));
        assertThat(intake.awaitLaunchRequests(1).get(0).resume()).isFalse();
        // The Job failed past its retries: results-relay reported it to EvalAI and closed the record.
        intake.failOnEvalAi(submission.challengePk(), 1187, submission.pk());
        intake.setStatus("leaderboard-10", team, submission.pk(), "FAILED");
        // How run 1's logcopy ended, as the relay recorded it: a forged cancel (issue 15) must not judge run 2.
        stack.dynamoDb().updateItem(r -> r.tableName("leaderboard-10")
                .key(Map.of("team_id", AttributeValue.fromS(Long.toString(team)),
                        "submission_id", AttributeValue.fromS(Long.toString(submission.pk()))))
                .updateExpression("SET last_ending = :e, not_uploaded = :n")
                .expressionAttributeValues(Map.of(":e", AttributeValue.fromS("UNREQUESTED_CANCEL"),
                        ":n", AttributeValue.fromL(List.of(AttributeValue.fromS("agent/agent1/agent_results.json"))))));
        double resumedBefore = IntakeStack.metric("ingest_submissions_launched_total", "resume", "true");

        stack.evalAi().resume(submission.pk());

        LaunchRequest request = intake.awaitLaunchRequests(1).get(0);
        assertThat(request.resume()).isTrue();
        assertThat(request.run()).as("a resume is the next run").isEqualTo(2);
        assertThat(request.submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(request.imageUri()).isEqualTo(IntakeStack.IMAGE);
        var record = intake.record("leaderboard-10", team, submission.pk());
        assertThat(record.get("submission_status").s()).isEqualTo("SUBMITTED");
        assertThat(record.get("run").n()).isEqualTo("2");
        assertThat(record.get("end_time").s()).isEqualTo("-");
        assertThat(record.get("resumes").n()).isEqualTo("1");
        assertThat(record).as("run 1's ending is not run 2's").doesNotContainKeys("last_ending", "not_uploaded");
        assertThat(Instant.parse(record.get("submitted_time").s())).isEqualTo(submission.submittedAt());
        assertThat(record.get("status_history").l()).extracting(e -> e.m().get("run").n()).containsExactly("1", "2");
        assertThat(IntakeStack.metric("ingest_submissions_launched_total", "resume", "true"))
                .isEqualTo(resumedBefore + 1);
    }

    @Test
    void aResumeDeliveredAgainNeverStartsASecondRunNorCountsTwice() throws Exception {
        long team = IntakeStack.uniqueTeam();
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "resume twice", 1187,
                IntakeStack.IMAGE));
        intake.awaitLaunchRequests(1);
        intake.failOnEvalAi(submission.challengePk(), 1187, submission.pk());
        intake.setStatus("leaderboard-10", team, submission.pk(), "FAILED");
        stack.evalAi().resume(submission.pk());
        assertThat(intake.awaitLaunchRequests(1).get(0).run()).isEqualTo(2);
        String resume = IntakeStack.announcement(submission.challengePk(), 1187, submission.pk(), IntakeStack.IMAGE);

        // Again while run 2 waits for its Job: the same run is asked for once more (the first request may be lost).
        intake.announce(resume);
        LaunchRequest again = intake.awaitLaunchRequests(1).get(0);
        assertThat(again.run()).isEqualTo(2);
        assertThat(again.resume()).isTrue();

        // Run 2 ended while EvalAI still shows the same resume: a late copy of its message opens no run 3.
        intake.setStatus("leaderboard-10", team, submission.pk(), "FAILED");
        double repeatedBefore = IntakeStack.metric("ingest_submissions_repeated_total");
        intake.announce(resume);
        intake.awaitSubmissionsHandled();
        intake.assertNothingOn(QueuesConfig.LAUNCH_REQUESTS);
        var record = intake.record("leaderboard-10", team, submission.pk());
        assertThat(record.get("run").n()).isEqualTo("2");
        assertThat(record.get("resumes").n()).isEqualTo("1");
        assertThat(record).as("run 1's ending is not run 2's").doesNotContainKeys("last_ending", "not_uploaded");
        assertThat(IntakeStack.metric("ingest_submissions_repeated_total")).isEqualTo(repeatedBefore + 1);
        intake.assertNoDeadLetters();
    }

    @Test
    void sameMessageTwiceNeverResetsTheRecordAndAsksForOneJob() {
        long team = IntakeStack.uniqueTeam();
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "twice", 1187, IntakeStack.IMAGE));
        LaunchRequest first = intake.awaitLaunchRequests(1).get(0);
        String submittedTime = intake.record("leaderboard-10", team, submission.pk()).get("submitted_time").s();
        String body = IntakeStack.announcement(submission.challengePk(), 1187, submission.pk(), IntakeStack.IMAGE);

        // Delivered again while the record is still SUBMITTED (the first launch request may have been lost):
        // published again for the same submission, so job-launcher's Job name is the same and no second Job is made.
        intake.announce(body);
        LaunchRequest second = intake.awaitLaunchRequests(1).get(0);
        assertThat(second.submission()).isEqualTo(first.submission());
        assertThat(second.trackSpec()).isEqualTo(first.trackSpec());
        assertThat(second.resume()).isFalse();
        assertThat(second.run()).isEqualTo(first.run());
        assertThat(intake.record("leaderboard-10", team, submission.pk()).get("submitted_time").s())
                .isEqualTo(submittedTime);

        // Once the Job runs, a late duplicate is dropped and the record keeps its state.
        intake.setStatus("leaderboard-10", team, submission.pk(), "RUNNING");
        double repeatedBefore = IntakeStack.metric("ingest_submissions_repeated_total");
        intake.announce(body);
        intake.awaitSubmissionsHandled();

        intake.assertNothingOn(QueuesConfig.LAUNCH_REQUESTS);
        assertThat(intake.record("leaderboard-10", team, submission.pk()).get("submission_status").s())
                .isEqualTo("RUNNING");
        assertThat(IntakeStack.metric("ingest_submissions_repeated_total")).isEqualTo(repeatedBefore + 1);
        intake.assertNoDeadLetters();
    }
}
