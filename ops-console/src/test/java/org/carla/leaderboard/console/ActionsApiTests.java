package org.carla.leaderboard.console;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * The operators' actions through the API, against the local stack: cancel and resume go through EvalAI's host API
 * (the stand-in shows the result as EvalAI would), a redrive moves dead letters back to their queue. Each is refused
 * when it makes no sense and changes nothing when repeated.
 */
@QuarkusTest
@ConsoleStack
class ActionsApiTests {

    @InjectLocalStack
    RunningStack stack;

    private static Instant ago(long minutes) {
        return Instant.now().minus(Duration.ofMinutes(minutes));
    }

    private long onEvalAi(long team) {
        return stack.evalAi().createSubmission(NewSubmission.of(team, "Team " + team, 2077,
                "registry.local/team/agent:1")).pk();
    }

    @Test
    void cancelGoesThroughEvalAiAndIsDoneOnce() {
        long pk = onEvalAi(4101);
        var record = GivenSubmission.of(Long.toString(pk), "4101", "Team 4101").submitted(ago(30))
                .launched(ago(25), "c-r1").running(ago(20));
        record.writeTo(stack);

        ConsoleApiTests.operator().post("/api/submissions/" + pk + "/cancel").then().statusCode(200)
                .body("outcome", equalTo("done")).body("operator", equalTo("tester"))
                .body("message", containsString("results-relay stops the run"));

        assertThat(stack.evalAi().submission(pk).orElseThrow().status()).isEqualTo("cancelled");
        assertThat(stack.evalAi().calls()).anySatisfy(call -> {
            assertThat(call.method()).isEqualTo("PATCH");
            assertThat(call.path()).isEqualTo("/api/jobs/challenges/1/submissions/" + pk + "/update_submission_meta/");
            assertThat(call.status()).isEqualTo(200);
        });
        int calls = stack.evalAi().calls().size();
        ConsoleApiTests.operator().post("/api/submissions/" + pk + "/cancel").then().statusCode(200)
                .body("outcome", equalTo("done-already"));
        assertThat(stack.evalAi().calls().subList(calls, stack.evalAi().calls().size()))
                .noneMatch(call -> call.method().equals("PATCH"));
    }

    @Test
    void aFinishedSubmissionCannotBeCancelled() {
        long pk = onEvalAi(4102);
        GivenSubmission.of(Long.toString(pk), "4102", "Team 4102").submitted(ago(30)).launched(ago(25), "f-r1")
                .running(ago(20)).ended("FINISHED", ago(2), true, 1.0).writeTo(stack);

        ConsoleApiTests.operator().queryParam("team", "4102").queryParam("leaderboard", "leaderboard-20")
                .post("/api/submissions/" + pk + "/cancel").then().statusCode(409)
                .body("error", equalTo("submission " + pk + " is FINISHED: a submission that has ended cannot be "
                        + "cancelled"));
        assertThat(stack.evalAi().submission(pk).orElseThrow().status()).isEqualTo("submitted");
    }

    @Test
    void aFailedSubmissionIsResumedThroughEvalAiWhichAnnouncesItAgain() {
        long pk = onEvalAi(4103);
        failOnEvalAi(pk);
        GivenSubmission.of(Long.toString(pk), "4103", "Team 4103").submitted(ago(60)).launched(ago(55), "r-r1")
                .running(ago(50)).ended("FAILED", ago(5), true, 3.0).writeTo(stack);
        stack.sqs().purgeQueue(r -> r.queueUrl(stack.queueUrl("submissions")));

        ConsoleApiTests.operator().post("/api/submissions/" + pk + "/resume").then().statusCode(200)
                .body("outcome", equalTo("done")).body("message", containsString("resuming"));

        assertThat(stack.evalAi().submission(pk).orElseThrow().status()).isEqualTo("resuming");
        List<Message> announced = stack.sqs().receiveMessage(r -> r.queueUrl(stack.queueUrl("submissions"))
                .maxNumberOfMessages(10).waitTimeSeconds(2)).messages();
        assertThat(announced).extracting(m -> EventCodec.parseAnnouncement(m.body()).submissionPk()).contains(pk);
        ConsoleApiTests.operator().post("/api/submissions/" + pk + "/resume").then().statusCode(200)
                .body("outcome", equalTo("done-already"));
    }

    @Test
    void aRunningSubmissionCannotBeResumed() {
        long pk = onEvalAi(4104);
        GivenSubmission.of(Long.toString(pk), "4104", "Team 4104").submitted(ago(30)).launched(ago(25), "x-r1")
                .running(ago(20)).writeTo(stack);

        ConsoleApiTests.operator().post("/api/submissions/" + pk + "/resume").then().statusCode(409)
                .body("error", equalTo("submission " + pk + " is RUNNING: only a failed submission can be resumed"));
        assertThat(stack.evalAi().submission(pk).orElseThrow().status()).isEqualTo("submitted");
    }

    /**
     * The console's token of a user who is not a host of the challenge (EvalAI answers its read 401 and its cancel
     * 404 "ParticipantTeam None"): nothing changes, and the operator reads that the token is not a host, and which
     * Secret holds it.
     */
    @Test
    void aTokenThatIsNotAHostOfTheChallengeChangesNothingAndSaysWhy() {
        long pk = onEvalAi(4106);
        GivenSubmission.of(Long.toString(pk), "4106", "Team 4106").submitted(ago(30)).launched(ago(25), "h-r1")
                .running(ago(20)).writeTo(stack);
        stack.evalAi().hostOfChallenge(false);
        try {
            ConsoleApiTests.operator().post("/api/submissions/" + pk + "/cancel").then().statusCode(502)
                    .body("error", containsString("does not take the console's token as a host of the challenge"))
                    .body("error", containsString("evalai-operator-token"));
        } finally {
            stack.evalAi().hostOfChallenge(true);
        }
        assertThat(stack.evalAi().submission(pk).orElseThrow().status()).isEqualTo("submitted");
    }

    @Test
    void evalAiDownChangesNothingAndSaysSo() {
        long pk = onEvalAi(4105);
        GivenSubmission.of(Long.toString(pk), "4105", "Team 4105").submitted(ago(30)).writeTo(stack);
        stack.evalAi().failFor(Duration.ofSeconds(30), 503);
        try {
            ConsoleApiTests.operator().post("/api/submissions/" + pk + "/cancel").then().statusCode(503)
                    .body("error", containsString("nothing was changed"));
        } finally {
            stack.evalAi().clearFaults();
        }
        assertThat(stack.evalAi().submission(pk).orElseThrow().status()).isEqualTo("submitted");
    }

    @Test
    void chosenDeadLettersGoBackToTheirQueueOnceWithoutTheirDeadLetterAttributes() {
        String queue = "progress-reports";
        stack.sqs().purgeQueue(r -> r.queueUrl(stack.queueUrl(queue)));
        stack.sqs().purgeQueue(r -> r.queueUrl(stack.deadLetterQueueUrl(queue)));
        for (String body : List.of("{\"first\":1}", "{\"second\":2}", "{\"third\":3}")) {
            stack.sqs().sendMessage(r -> r.queueUrl(stack.deadLetterQueueUrl(queue)).messageBody(body)
                    .messageAttributes(Map.of("dead-letter-reason", ConsoleApiTests.text("retries-exhausted"),
                            "source-queue", ConsoleApiTests.text(queue), "type", ConsoleApiTests.text("progress"))));
        }
        var letters = ConsoleApiTests.operator().get("/api/dead-letters/" + queue).then().statusCode(200).extract()
                .jsonPath();
        String first = letters.getString("find { it.body == '{\"first\":1}' }.message_id");
        String third = letters.getString("find { it.body == '{\"third\":3}' }.message_id");

        ConsoleApiTests.operator().contentType(ContentType.JSON).body(Map.of("message_ids", List.of(first, third)))
                .post("/api/dead-letters/" + queue + "/redrive").then().statusCode(200)
                .body("outcome", equalTo("done")).body("moved.size()", equalTo(2));

        List<Message> back = stack.sqs().receiveMessage(r -> r.queueUrl(stack.queueUrl(queue)).maxNumberOfMessages(10)
                .waitTimeSeconds(2).messageAttributeNames("All")
                .messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages();
        assertThat(back).extracting(Message::body).containsExactlyInAnyOrder("{\"first\":1}", "{\"third\":3}");
        assertThat(back).allSatisfy(message -> {
            assertThat(message.messageAttributes()).containsOnlyKeys("type", "redriven-by");
            assertThat(message.messageAttributes().get("redriven-by").stringValue()).isEqualTo("tester");
        });
        ConsoleApiTests.operator().get("/api/dead-letters/" + queue).then()
                .body("body", equalTo(List.of("{\"second\":2}")));
        ConsoleApiTests.operator().contentType(ContentType.JSON).body(Map.of("message_ids", List.of(first)))
                .post("/api/dead-letters/" + queue + "/redrive").then().statusCode(200)
                .body("outcome", equalTo("done-already")).body("not_found", equalTo(List.of(first)));
        ConsoleApiTests.operator().contentType(ContentType.JSON).body(Map.of())
                .post("/api/dead-letters/" + queue + "/redrive").then().statusCode(409)
                .body("error", containsString("\"all\": true"));
        var tooMany = IntStream.rangeClosed(1, 101).mapToObj(i -> "id-" + i).toList();
        ConsoleApiTests.operator().contentType(ContentType.JSON).body(Map.of("message_ids", tooMany))
                .post("/api/dead-letters/" + queue + "/redrive").then().statusCode(409)
                .body("error", containsString("at most 100"));
        ConsoleApiTests.operator().contentType(ContentType.JSON).body(Map.of("all", true))
                .post("/api/dead-letters/" + queue + "/redrive").then().statusCode(200).body("moved.size()", equalTo(1));
        given().contentType(ContentType.JSON).body(Map.of("all", true)).post("/api/dead-letters/" + queue + "/redrive")
                .then().statusCode(401);
    }

    /** As results-relay reports a failed run: the final update with status failed. */
    private void failOnEvalAi(long pk) {
        given().baseUri(stack.evalAi().url()).header("Authorization", "Bearer "
                + stack.quarkusConfig().get("evalai.token")).contentType(ContentType.JSON)
                .body(Map.of("submission", pk, "challenge_phase", 2077, "submission_status", "failed", "stdout", "",
                        "stderr", "the agent crashed", "metadata", "{}"))
                .put("/api/jobs/challenge/1/update_submission/").then().statusCode(200);
    }
}
