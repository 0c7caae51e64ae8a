package org.carla.leaderboard.localstack.evalai;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

class EvalAiStandInTests {

    private static final String TOKEN = "host-token-for-tests";
    /** A valid EvalAI user who is not a host of the challenge. */
    private static final String OTHER = "another-users-token";
    private static final String IMAGE = "123456789.dkr.ecr.us-west-2.amazonaws.com/team-7:v3";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> published = new CopyOnWriteArrayList<>();
    private EvalAiStandIn evalAi;

    @BeforeEach
    void start() {
        evalAi = EvalAiStandIn.start(EvalAiOptions.builder(TOKEN, published::add).challengePk(23).build());
    }

    @AfterEach
    void stop() {
        evalAi.close();
    }

    @Test
    void createPublishesTheMessageEvalAiSends() {
        SubmissionView created = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE));
        SubmissionView second = evalAi.createSubmission(
                NewSubmission.of(8, "Team Eight", 2075, IMAGE).withPksAsStrings(true));

        assertThat(created.status()).isEqualTo("submitted");
        assertThat(published).containsExactly(
                "{\"challenge_pk\":23,\"phase_pk\":2077,\"is_static_dataset_code_upload_submission\":false,"
                        + "\"submitted_image_uri\":\"" + IMAGE + "\",\"submission_pk\":" + created.pk() + "}",
                "{\"challenge_pk\":\"23\",\"phase_pk\":\"2075\",\"is_static_dataset_code_upload_submission\":false,"
                        + "\"submitted_image_uri\":\"" + IMAGE + "\",\"submission_pk\":\"" + second.pk() + "\"}");
    }

    @Test
    void servesTheSubmissionAsEvalAiDoes() {
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();

        host().get("/api/jobs/submission/" + pk).then().statusCode(200)
                .body("id", equalTo((int) pk))
                .body("participant_team", equalTo(7))
                .body("participant_team_name", equalTo("Team Seven"))
                .body("status", equalTo("submitted"))
                .body("challenge_phase", equalTo(2077))
                .body("submitted_image_uri", equalTo(IMAGE))
                .body("job_name", equalTo(List.of()));
        host().get("/api/jobs/submission/999").then().statusCode(404)
                .body("error", equalTo("Submission 999 does not exist"));
        host().get("/api/jobs/submission/" + pk + "/").then().statusCode(404);
    }

    @Test
    void refusesAMissingOrWrongToken() {
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();

        given().baseUri(evalAi.url()).get("/api/jobs/submission/" + pk).then().statusCode(401)
                .body("detail", equalTo("Authentication credentials were not provided."));
        given().baseUri(evalAi.url()).header("Authorization", "Bearer wrong").contentType(ContentType.JSON)
                .body(finished(pk, carlaResult())).put(update()).then().statusCode(401);
        given().baseUri(evalAi.url()).header("Authorization", TOKEN).get("/api/jobs/submission/" + pk).then()
                .statusCode(401);

        assertThat(evalAi.submission(pk).orElseThrow().status()).isEqualTo("submitted");
        assertThat(evalAi.calls()).extracting(RecordedCall::status).containsExactly(401, 401, 401);
    }

    @Test
    void patchMarksTheSubmissionRunningWithItsJobName() {
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();

        host().contentType(ContentType.JSON).body(Map.of("submission", pk, "submission_status", "RUNNING",
                "job_name", "Team-Seven-Sensors-1")).patch(update()).then().statusCode(200)
                .body("status", equalTo("running")).body("job_name", hasItem("team-seven-sensors-1"));
        host().contentType(ContentType.JSON).body(Map.of("submission", pk, "submission_status", "finished",
                "job_name", "other")).patch(update()).then().statusCode(400).body("error", equalTo("Sorry, submission status is invalid"));

        SubmissionView view = evalAi.submission(pk).orElseThrow();
        assertThat(view.status()).isEqualTo("running");
        assertThat(view.jobNames()).containsExactly("team-seven-sensors-1");
        assertThat(view.startedAt()).isNotNull();
    }

    @Test
    void refusesAnUnknownStatus() {
        long pk = running();

        host().contentType(ContentType.JSON).body(Map.of("submission", pk, "challenge_phase", 2077,
                "submission_status", "done", "result", carlaResult(), "stdout", "", "stderr", "")).put(update())
                .then().statusCode(400).body("error", equalTo("Sorry, submission status is invalid"));
        host().contentType(ContentType.JSON).body(finished(pk, carlaResult())).put(partialUpdate())
                .then().statusCode(200);
        host().contentType(ContentType.JSON).body(Map.of("submission", pk, "challenge_phase", 2077,
                "submission_status", "partially_evaluated", "result", carlaResult())).put(update())
                .then().statusCode(400);
    }

    @Test
    void refusesResultsThatDoNotMatchThePhase() {
        long pk = running();
        Map<String, Object> accuracies = accuracies();
        Map<String, Object> renamed = new LinkedHashMap<>(accuracies);
        renamed.put("driving_score", renamed.remove("Driving score"));
        Map<String, Object> textual = new LinkedHashMap<>(accuracies);
        textual.put("Route completion", "95.0");
        Map<String, Object> incomplete = new LinkedHashMap<>(accuracies);
        incomplete.remove("Agent blocked");

        putFinished(pk, "not json").statusCode(400).body("error", containsString("`result` key contains invalid data"));
        putFinished(pk, result("test", accuracies)).statusCode(400)
                .body("error", containsString("Challenge Phase Split does not exist"));
        putFinished(pk, result("leaderboard", renamed)).statusCode(400)
                .body("error", containsString("[driving_score]"));
        putFinished(pk, result("leaderboard", textual)).statusCode(400)
                .body("error", containsString("not of float/int"));
        putFinished(pk, result("leaderboard", incomplete)).statusCode(400)
                .body("error", containsString("[Agent blocked]"));
        host().contentType(ContentType.JSON).body(Map.of("submission", pk, "challenge_phase", 2077,
                "submission_status", "finished", "result", List.of(Map.of("split", "leaderboard",
                        "accuracies", accuracies)))).put(update()).then().statusCode(400);

        assertThat(evalAi.submission(pk).orElseThrow().status()).isEqualTo("running");
    }

    @Test
    void storesAFinalResult() {
        long pk = running();
        Map<String, Object> body = finished(pk, carlaResult());
        body.put("submission_status", "FINISHED");
        body.put("stdout", "All 20 route have been completed");
        body.put("stderr", "");
        body.put("metadata", "{\"entry_status\":\"Finished\"}");

        host().contentType(ContentType.JSON).body(body).put(update()).then().statusCode(200)
                .body("success", equalTo("Submission result has been successfully updated"));

        SubmissionView view = evalAi.submission(pk).orElseThrow();
        assertThat(view.status()).isEqualTo("finished");
        assertThat(view.statusHistory()).containsExactly("submitted", "running", "finished");
        assertThat(view.result()).isEqualTo(carlaResult());
        assertThat(view.stdout()).isEqualTo("All 20 route have been completed");
        assertThat(view.metadata()).isEqualTo("{\"entry_status\":\"Finished\"}");
        String stdoutFile = host().get("/api/jobs/submission/" + pk).then().statusCode(200)
                .body("status", equalTo("finished")).extract().path("stdout_file");
        given().get(stdoutFile).then().statusCode(200).body(equalTo("All 20 route have been completed"));
    }

    @Test
    void acceptsFormEncodedUpdatesAsEvalAiDoes() {
        long pk = running();

        host().contentType("application/x-www-form-urlencoded; charset=UTF-8").formParam("submission", pk)
                .formParam("challenge_phase", "2077").formParam("submission_status", "failed")
                .formParam("stdout", "").formParam("stderr", "CARLA crashed").put(update()).then().statusCode(200);

        host().contentType("text/plain").body("submission=" + pk).put(update()).then().statusCode(415);

        assertThat(evalAi.submission(pk).orElseThrow().status()).isEqualTo("failed");
        assertThat(evalAi.submission(pk).orElseThrow().stderr()).isEqualTo("CARLA crashed");
    }

    @Test
    void acceptsPartialResultsOnThePluralPath() {
        long pk = running();
        Map<String, Object> some = Map.of("Driving score", 12.5, "Route completion", 40);

        host().contentType(ContentType.JSON).body(Map.of("submission", String.valueOf(pk), "challenge_phase", "2077",
                "submission_status", "PARTIALLY_EVALUATED", "result", result("leaderboard", some),
                "stdout", "Completed 5 out of the 20 routes", "stderr", "", "metadata", "{}"))
                .put(partialUpdate()).then().statusCode(200);
        host().contentType(ContentType.JSON).body(Map.of("submission", pk, "challenge_phase", 2077,
                "submission_status", "partially_evaluated", "result", result("leaderboard", Map.of("speed", 3))))
                .put(partialUpdate()).then().statusCode(400);
        host().contentType(ContentType.JSON).body(Map.of("submission", pk, "challenge_phase", 2077,
                "submission_status", "partially_evaluated", "result", carlaResult()))
                .put("/api/jobs/challenge/23/update_partially_evaluated_submission/").then().statusCode(404);

        SubmissionView view = evalAi.submission(pk).orElseThrow();
        assertThat(view.status()).isEqualTo("partially_evaluated");
        assertThat(view.stdout()).isEqualTo("Completed 5 out of the 20 routes");
    }

    @Test
    void cancelsAndResumesAsTheHostCan() {
        long cancelled = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();
        long failed = running();
        putFinished(failed, carlaResult()).statusCode(200);
        host().contentType(ContentType.JSON).body(Map.of("submission", failed, "submission_status", "failed",
                "stdout", "", "stderr", "")).put(update()).then().statusCode(200);
        published.clear();

        assertThat(evalAi.cancel(cancelled).status()).isEqualTo("cancelled");
        assertThatThrownBy(() -> evalAi.resume(cancelled)).hasMessageContaining("Only failed submissions");
        assertThatThrownBy(() -> evalAi.cancel(failed)).hasMessageContaining("cannot be cancelled");
        assertThat(published).isEmpty();
        SubmissionView resumed = evalAi.resume(failed);

        assertThat(resumed.status()).isEqualTo("resuming");
        assertThat(resumed.rerunResumedAt()).isNotNull();
        assertThat(published).containsExactly("{\"challenge_pk\":23,\"phase_pk\":2077,"
                + "\"is_static_dataset_code_upload_submission\":false,\"submitted_image_uri\":\"" + IMAGE
                + "\",\"submission_pk\":" + failed + "}");
        host().get("/api/jobs/submission/" + cancelled).then().body("status", equalTo("cancelled"));
    }

    @Test
    void cancelsAndResumesThroughTheHostApiAsEvalAisUiDoes() {
        long running = running();
        long failed = running();
        host().contentType(ContentType.JSON).body(Map.of("submission", failed, "submission_status", "failed",
                "stdout", "", "stderr", "")).put(update()).then().statusCode(200);
        published.clear();

        host().contentType(ContentType.JSON).body(Map.of("status", "cancelled"))
                .patch("/api/jobs/challenges/23/submissions/" + running + "/update_submission_meta/").then()
                .statusCode(200).body("id", equalTo((int) running)).body("status", equalTo("cancelled"));
        host().contentType(ContentType.JSON).body(Map.of("status", "stopped"))
                .patch("/api/jobs/challenges/23/submissions/" + running + "/update_submission_meta/").then()
                .statusCode(400).body("status", equalTo("\"stopped\" is not a valid choice."));
        host().contentType(ContentType.JSON).body(Map.of("status", "cancelled"))
                .patch("/api/jobs/challenges/99/submissions/" + running + "/update_submission_meta/").then()
                .statusCode(404).body("detail", equalTo("ParticipantTeam None does not exist"));
        host().post("/api/jobs/submissions/" + running + "/resume/").then().statusCode(400)
                .body("error", equalTo("Only failed submissions can be resumed"));
        host().post("/api/jobs/submissions/999/resume/").then().statusCode(404);
        host().post("/api/jobs/submissions/" + failed + "/resume/").then().statusCode(200)
                .body("success", equalTo("Submission is successfully resumed"));

        assertThat(evalAi.submission(running).orElseThrow().status()).isEqualTo("cancelled");
        assertThat(evalAi.submission(failed).orElseThrow().status()).isEqualTo("resuming");
        assertThat(published).singleElement().asString().contains("\"submission_pk\":" + failed);
        given().baseUri(evalAi.url()).post("/api/jobs/submissions/" + failed + "/resume/").then().statusCode(401);
    }

    @Test
    void listsTheChallengesSubmissionsByStatusAndTimeAsEvalAiDoes() {
        long early = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();
        long cancelled = evalAi.createSubmission(NewSubmission.of(8, "Team Eight", 2077, IMAGE)).pk();
        long running = running();
        evalAi.cancel(early);
        evalAi.cancel(cancelled);
        String between = evalAi.submission(early).orElseThrow().submittedAt().toString();

        host().queryParam("status", "cancelled").get("/api/jobs/challenge/23/submission/").then().statusCode(200)
                .body("id", equalTo(List.of((int) early, (int) cancelled)))
                .body("[0].participant_team_name", equalTo("Team Seven"));
        host().queryParam("status", "cancelled").queryParam("submitted_after", between)
                .get("/api/jobs/challenge/23/submission/").then().statusCode(200)
                .body("id", equalTo(List.of((int) cancelled)));
        host().get("/api/jobs/challenge/23/submission/").then().statusCode(200)
                .body("id", equalTo(List.of((int) early, (int) cancelled, (int) running)));
        host().queryParam("status", "partially_evaluated").get("/api/jobs/challenge/23/submission/").then()
                .statusCode(400).body("error", equalTo("Invalid submission status partially_evaluated"));
        host().queryParam("submitted_after", "yesterday").get("/api/jobs/challenge/23/submission/").then()
                .statusCode(400).body("error", equalTo("Invalid datetime format for 'submitted_after'"));
        host().get("/api/jobs/challenge/99/submission/").then().statusCode(404)
                .body("detail", equalTo("Challenge 99 does not exist"));
        given().baseUri(evalAi.url()).get("/api/jobs/challenge/23/submission/").then().statusCode(401);
    }

    /** EvalAI's get_submissions_for_challenge has no paginator: one answer holds every submission that matches. */
    @Test
    void listsEveryMatchingSubmissionInOneAnswerAsEvalAiDoesUnpaginated() {
        for (int i = 0; i < 160; i++) {
            evalAi.cancel(evalAi.createSubmission(NewSubmission.of(i, "Team " + i, 2077, IMAGE)).pk());
        }

        var answer = host().queryParam("status", "cancelled").get("/api/jobs/challenge/23/submission/").then()
                .statusCode(200).extract().jsonPath();
        assertThat(answer.getList("$")).hasSize(160);
        assertThat(answer.getList("id", Integer.class)).doesNotHaveDuplicates();
    }

    /**
     * A valid token of a user who is not a host of the challenge gets what each of EvalAI's views answers it: 400 "not
     * authorized" from the updates and the challenge's list, 401 from a submission's read (neither its owner nor a
     * host), 404 from update_submission_meta (its participant branch: no team), 403 from a resume; nothing changes.
     */
    @Test
    void answersAUserWhoIsNotAHostOfTheChallengeAsEvalAisViewsDo() {
        evalAi.close();
        evalAi = EvalAiStandIn.start(EvalAiOptions.builder(TOKEN, published::add).challengePk(23).user(OTHER).build());
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();
        long failed = evalAi.createSubmission(NewSubmission.of(8, "Team Eight", 2077, IMAGE)).pk();
        host().contentType(ContentType.JSON).body(Map.of("submission", failed, "submission_status", "failed",
                "stdout", "", "stderr", "", "result", "", "metadata", "")).put(update()).then().statusCode(200);

        notAHost(user(OTHER));
        user(OTHER).get("/api/jobs/submission/" + failed).then().statusCode(401)
                .body("error", equalTo("Sorry, you are not authorized to access this submission."));
        user(OTHER).contentType(ContentType.JSON).body(Map.of("status", "cancelled"))
                .patch("/api/jobs/challenges/23/submissions/" + pk + "/update_submission_meta/").then().statusCode(404)
                .body("detail", equalTo("ParticipantTeam None does not exist"));
        user(OTHER).post("/api/jobs/submissions/" + failed + "/resume/").then().statusCode(403)
                .body("error", equalTo("Only challenge hosts are allowed to resume a submission"));

        evalAi.hostOfChallenge(false);
        notAHost(host());
        host().get("/api/jobs/submission/" + pk).then().statusCode(401);
        evalAi.hostOfChallenge(true);
        host().get("/api/jobs/submission/" + pk).then().statusCode(200);

        assertThat(evalAi.submission(pk).orElseThrow().statusHistory()).containsExactly("submitted");
        assertThat(evalAi.submission(failed).orElseThrow().status()).isEqualTo("failed");
    }

    private void notAHost(RequestSpecification caller) {
        long pk = evalAi.submissions().get(0).pk();
        for (var update : List.of(caller.contentType(ContentType.JSON).body(finished(pk, carlaResult())).put(update()),
                caller.contentType(ContentType.JSON).body(Map.of("submission", pk, "submission_status", "running"))
                        .patch(update()),
                caller.contentType(ContentType.JSON).body(finished(pk, carlaResult())).put(partialUpdate()),
                caller.queryParam("status", "cancelled").get("/api/jobs/challenge/23/submission/"))) {
            update.then().statusCode(400).body("error", equalTo("Sorry, you are not authorized to make this request!"));
        }
    }

    /**
     * EvalAI throttles each user at 60 requests a minute, whatever the endpoint, as Django REST framework's
     * UserRateThrottle counts: the requests it let through in the last minute; the 61st gets 429 with Retry-After (the
     * rest of the oldest one's minute, in whole seconds) and is not counted; another user is not held back; once the
     * oldest leaves the minute, one more goes.
     */
    @Test
    void throttlesEachUserAtSixtyRequestsAMinuteAsEvalAiDoes() {
        var clock = new MovingClock(java.time.Instant.parse("2026-11-27T10:00:00Z"));
        evalAi.close();
        evalAi = EvalAiStandIn.start(EvalAiOptions.builder(TOKEN, published::add).challengePk(23).user(OTHER)
                .clock(clock).build());
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();
        host().get("/api/jobs/submission/" + pk).then().statusCode(200);
        clock.advance(Duration.ofSeconds(20));
        for (int i = 1; i < 60; i++) {
            (i % 2 == 0 ? host().get("/api/jobs/submission/" + pk)
                    : host().queryParam("status", "cancelled").get("/api/jobs/challenge/23/submission/"))
                    .then().statusCode(200);
        }

        host().get("/api/jobs/submission/" + pk).then().statusCode(429).header("Retry-After", "40")
                .body("detail", equalTo("Request was throttled. Expected available in 40 seconds."));
        user(OTHER).get("/api/jobs/submission/" + pk).then().statusCode(401);
        clock.advance(Duration.ofSeconds(39));
        host().get("/api/jobs/submission/" + pk).then().statusCode(429).header("Retry-After", "1")
                .body("detail", equalTo("Request was throttled. Expected available in 1 second."));
        clock.advance(Duration.ofSeconds(1));
        host().get("/api/jobs/submission/" + pk).then().statusCode(200);
        host().get("/api/jobs/submission/" + pk).then().statusCode(429);
        given().baseUri(evalAi.url()).get("/api/jobs/submission/" + pk).then().statusCode(401);

        assertThat(evalAi.calls()).extracting(RecordedCall::status).filteredOn(status -> status == 429).hasSize(3);
        assertThat(evalAi.quarkusConfig()).containsEntry("evalai.budget.per", "PT1M");
    }

    @Test
    void failsCallsAndSlowsThemDownWhenTold() {
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();
        evalAi.failNext(2, 503);

        host().get("/api/jobs/submission/" + pk).then().statusCode(503);
        host().get("/api/jobs/submission/" + pk).then().statusCode(503);
        host().get("/api/jobs/submission/" + pk).then().statusCode(200);

        evalAi.failFor(Duration.ofMinutes(1), 502);
        host().get("/api/jobs/submission/" + pk).then().statusCode(502);
        evalAi.clearFaults();
        evalAi.latency(Duration.ofMillis(300));
        long start = System.nanoTime();
        host().get("/api/jobs/submission/" + pk).then().statusCode(200);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));

        assertThat(evalAi.calls()).extracting(RecordedCall::status).containsExactly(503, 503, 200, 502, 200);
        assertThat(evalAi.calls()).allSatisfy(call -> {
            assertThat(call.method()).isEqualTo("GET");
            assertThat(call.path()).isEqualTo("/api/jobs/submission/" + pk);
        });
    }

    @Test
    void failsOnlyTheEndpointItIsToldToFail() {
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();
        long other = evalAi.createSubmission(NewSubmission.of(8, "Team Eight", 2077, IMAGE)).pk();
        evalAi.failNext(1, 503, "GET", "/api/jobs/submission/" + pk);

        host().get("/api/jobs/submission/" + other).then().statusCode(200);
        host().get("/api/jobs/submission/" + pk).then().statusCode(503);
        host().get("/api/jobs/submission/" + pk).then().statusCode(200);

        assertThat(evalAi.calls()).extracting(RecordedCall::status).containsExactly(200, 503, 200);
    }

    @Test
    void throttlesWithRetryAfterAsDjangoRestFrameworkDoes() {
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();
        evalAi.throttleFor(Duration.ofMinutes(1), Duration.ofSeconds(30));

        host().get("/api/jobs/submission/" + pk).then().statusCode(429).header("Retry-After", "30")
                .body("detail", equalTo("Request was throttled. Expected available in 30 seconds."));
        evalAi.clearFaults();
        host().get("/api/jobs/submission/" + pk).then().statusCode(200);
        assertThat(evalAi.calls()).extracting(RecordedCall::status).containsExactly(429, 200);
    }

    @Test
    void leavesCallsUnansweredWhileHanging() throws Exception {
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();
        evalAi.hangFor(Duration.ofMinutes(5));
        var client = HttpClient.newHttpClient();
        var request = HttpRequest.newBuilder(URI.create(evalAi.url() + "/api/jobs/submission/" + pk))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(1)).build();

        assertThatThrownBy(() -> client.send(request, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(HttpTimeoutException.class);
        try (var held = new Socket("127.0.0.1", evalAi.port())) {
            held.getOutputStream().write(("GET /api/jobs/submission/" + pk + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer " + TOKEN + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            await().atMost(Duration.ofSeconds(10)).until(() -> evalAi.calls().size() == 2);
            evalAi.clearFaults();

            // The held call's connection is closed unanswered (a client may retry it on a new one); new calls are answered.
            held.setSoTimeout(10_000);
            assertThat(held.getInputStream().read()).isEqualTo(-1);
        }
        assertThat(client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        assertThat(evalAi.calls()).extracting(RecordedCall::status).containsExactly(0, 0, 200);
    }

    @Test
    void refusesConnectionsForAWhileAndComesBackWithItsSubmissions() {
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();
        evalAi.refuseFor(Duration.ofSeconds(1));

        assertThat(evalAi.listening()).isFalse();
        await().atMost(Duration.ofSeconds(20)).until(evalAi::listening);
        host().get("/api/jobs/submission/" + pk).then().statusCode(200).body("id", equalTo((int) pk));

        given().baseUri(evalAi.controlUrl()).contentType(ContentType.JSON).body(Map.of("refuse_for_seconds", 600))
                .post("/faults").then().statusCode(200);
        // A closed listening channel still registered with the server's selector is released at its next
        // select: the port refuses within moments of the answer, not necessarily before the next connect.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThatThrownBy(() -> {
            try (var socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", evalAi.port()), 2000);
            }
        }).isInstanceOf(ConnectException.class));
        evalAi.clearFaults();
        host().get("/api/jobs/submission/" + pk).then().statusCode(200);
    }

    @Test
    void offersTheHostControlsOverHttp() {
        var created = given().baseUri(evalAi.controlUrl()).contentType(ContentType.JSON)
                .body(Map.of("team_id", 9, "team_name", "Nine", "phase_pk", 2077, "image", IMAGE,
                        "pks_as_strings", true))
                .post("/submissions").then().statusCode(201).body("status", equalTo("submitted")).extract();
        int pk = created.path("pk");
        assertThat(published).singleElement().asString().contains("\"submission_pk\":\"" + pk + "\"");

        given().baseUri(evalAi.controlUrl()).contentType(ContentType.JSON)
                .body(Map.of("fail_next", 1, "status", 500)).post("/faults").then().statusCode(200);
        host().get("/api/jobs/submission/" + pk).then().statusCode(500);
        given().baseUri(evalAi.controlUrl()).post("/submissions/" + pk + "/cancel").then().statusCode(200)
                .body("status", equalTo("cancelled"));
        given().baseUri(evalAi.controlUrl()).post("/submissions/" + pk + "/resume").then().statusCode(400);
        given().baseUri(evalAi.controlUrl()).get("/submissions/" + pk).then().statusCode(200)
                .body("status_history", equalTo(List.of("submitted", "cancelled")));
        given().baseUri(evalAi.controlUrl()).get("/calls").then().statusCode(200)
                .body("[0].status", equalTo(500)).body("[0].path", equalTo("/api/jobs/submission/" + pk));
        given().baseUri(evalAi.controlUrl()).contentType(ContentType.JSON)
                .body(Map.of("team_id", 9, "team_name", "Nine", "phase_pk", 1, "image", IMAGE))
                .post("/submissions").then().statusCode(400);
    }

    private long running() {
        long pk = evalAi.createSubmission(NewSubmission.of(7, "Team Seven", 2077, IMAGE)).pk();
        host().contentType(ContentType.JSON).body(Map.of("submission", pk, "submission_status", "running"))
                .patch(update()).then().statusCode(200);
        return pk;
    }

    private io.restassured.response.ValidatableResponse putFinished(long pk, String result) {
        return host().contentType(ContentType.JSON).body(finished(pk, result)).put(update()).then();
    }

    private RequestSpecification host() {
        return user(TOKEN);
    }

    private RequestSpecification user(String token) {
        return given().baseUri(evalAi.url()).header("Authorization", "Bearer " + token);
    }

    /** A clock a test moves. */
    private static final class MovingClock extends java.time.Clock {
        private volatile java.time.Instant now;

        MovingClock(java.time.Instant now) {
            this.now = now;
        }

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public java.time.Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    private static String update() {
        return "/api/jobs/challenge/23/update_submission/";
    }

    private static String partialUpdate() {
        return "/api/jobs/challenges/23/update_partially_evaluated_submission/";
    }

    private static Map<String, Object> finished(long pk, String result) {
        Map<String, Object> body = new HashMap<>();
        body.put("submission", pk);
        body.put("challenge_phase", 2077);
        body.put("submission_status", "finished");
        body.put("result", result);
        body.put("stdout", "");
        body.put("stderr", "");
        body.put("metadata", "");
        return body;
    }

    private static Map<String, Object> accuracies() {
        Map<String, Object> accuracies = new LinkedHashMap<>();
        double value = 1;
        for (String label : LeaderboardSchema.CARLA_LABELS) {
            accuracies.put(label, value++ / 4);
        }
        return accuracies;
    }

    private static String carlaResult() {
        return result("leaderboard", accuracies());
    }

    private static String result(String split, Map<String, Object> accuracies) {
        try {
            return JSON.writeValueAsString(List.of(Map.of("split", split, "show_to_participant", true,
                    "accuracies", accuracies)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
