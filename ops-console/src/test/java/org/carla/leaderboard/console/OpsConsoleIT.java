package org.carla.leaderboard.console;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.notNullValue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.aws.AwsClients;
import org.carla.leaderboard.localstack.aws.ElasticMqServer;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackProfile;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * The packaged ops-console (the jar, or the native executable under {@code -Pnative}) in its production
 * configuration, against ElasticMQ, DynamoDB Local, S3Proxy, the Kubernetes API server and the EvalAI stand-in, signed
 * in to as on the local stack (OIDC off, a static operator token drawn for this run): the API answers an operator and
 * refuses anyone else, the page and its script load without a token, an operator's cancel and redrive are done, and
 * Kubernetes' probes get their answers.
 */
@QuarkusIntegrationTest
@TestProfile(OpsConsoleIT.Stack.class)
class OpsConsoleIT {

    /**
     * The stack, and the local run's sign-in (LocalRunConfig's for ops-console): OIDC off and a static operator token
     * drawn for this run, passed as the local run passes it, in a configuration file of its own (owner-only), never on
     * the command line that the test's log prints.
     */
    public static class Stack extends LocalStackProfile {

        static final String OPERATOR = "it-operator";
        static final String TOKEN = token();
        private static final Path SIGN_IN = signIn();

        public Stack() {
            super(Map.of("components", "sqs,dynamodb,s3,evalai,kubernetes"));
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.config.locations", SIGN_IN.toUri().toString());
        }

        private static String token() {
            byte[] random = new byte[24];
            new SecureRandom().nextBytes(random);
            return HexFormat.of().formatHex(random);
        }

        private static Path signIn() {
            try {
                Path file = Files.createTempFile(Files.createDirectories(Path.of("target").toAbsolutePath()),
                        "ops-console-it-", ".properties",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                file.toFile().deleteOnExit();
                return Files.writeString(file, "quarkus.oidc.tenant-enabled=false\n"
                        + "console.auth.operator-tokens." + OPERATOR + "=" + TOKEN + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static final String TOKEN_OF_SOMEONE_ELSE = "not-the-operator-token-0000000000";

    @InjectLocalStack
    RunningStack stack;

    @Test
    void theApiAnswersAnOperatorWithTheTokenAndRefusesAnyoneElse() {
        String team = "IT Team <&> " + System.nanoTime();
        var submission = GivenSubmission.random(team).submitted(Instant.now().minusSeconds(60));
        submission.writeTo(stack);

        given().get("/api/submissions").then().statusCode(401);
        given().header("Authorization", "Bearer " + TOKEN_OF_SOMEONE_ELSE).get("/api/submissions").then()
                .statusCode(401);
        given().post("/api/submissions/" + submission.submissionId + "/cancel").then().statusCode(401);
        operator().get("/api/operator").then().statusCode(200).body("name", equalTo(Stack.OPERATOR));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> operator().queryParam("team", team)
                .get("/api/submissions").then().statusCode(200)
                .body("submissions.submission_id", hasItem(submission.submissionId))
                .body("submissions.find { it.submission_id == '" + submission.submissionId + "' }.team_name",
                        equalTo(team)));
        assertThat(Path.of("target/quarkus.log")).content().contains("static operator tokens accepted for: it-operator")
                .doesNotContain(Stack.TOKEN);
    }

    @Test
    void thePageLoadsWithoutATokenAndItsPolicy() {
        given().get("/").then().statusCode(200).body(containsString("Leaderboard operations"))
                .header("Content-Security-Policy", containsString("script-src 'self'"));
        given().get("/console.js").then().statusCode(200).body(containsString("/api/submissions"));
        given().get("/console.css").then().statusCode(200);
    }

    /** An operator's cancel goes to EvalAI as its host's own cancel does; a second one changes nothing. */
    @Test
    void anOperatorCancelsARunningSubmissionThroughEvalAi() {
        var onEvalAi = stack.evalAi().createSubmission(NewSubmission.of(4901, "Team 4901", 2077,
                "registry.local/team/agent:1"));
        long pk = onEvalAi.pk();
        GivenSubmission.of(Long.toString(pk), "4901", "Team 4901")
                .text(SubmissionTable.CHALLENGE_ID, Long.toString(onEvalAi.challengePk()))
                .submitted(Instant.now().minusSeconds(120))
                .launched(Instant.now().minusSeconds(100), "team-4901-r1").running(Instant.now().minusSeconds(90))
                .writeTo(stack);

        operator().post("/api/submissions/" + pk + "/cancel").then().statusCode(200).body("outcome", equalTo("done"))
                .body("operator", equalTo(Stack.OPERATOR));

        assertThat(stack.evalAi().submission(pk).orElseThrow().status()).isEqualTo("cancelled");
        operator().post("/api/submissions/" + pk + "/cancel").then().statusCode(200)
                .body("outcome", equalTo("done-already"));
    }

    /** A dead letter listed and moved back to its queue, without its dead-letter attributes, named by its mover. */
    @Test
    void anOperatorMovesADeadLetterBackToItsQueue() {
        String queue = "launch-requests";
        String body = "{\"redriven\":" + System.nanoTime() + "}";
        stack.sqs().sendMessage(r -> r.queueUrl(stack.deadLetterQueueUrl(queue)).messageBody(body)
                .messageAttributes(Map.of("dead-letter-reason", MessageAttributeValue.builder().dataType("String")
                        .stringValue("retries-exhausted").build())));
        String id = await().atMost(Duration.ofSeconds(20)).until(() -> operator().get("/api/dead-letters/" + queue)
                .then().statusCode(200).extract().jsonPath()
                .getString("find { it.body == '" + body + "' }.message_id"), notNullValue());

        operator().contentType(ContentType.JSON).body(Map.of("message_ids", List.of(id)))
                .post("/api/dead-letters/" + queue + "/redrive").then().statusCode(200)
                .body("outcome", equalTo("done")).body("moved.size()", equalTo(1));

        List<Message> back = await().atMost(Duration.ofSeconds(20)).until(() -> stack.sqs().receiveMessage(r -> r
                .queueUrl(stack.queueUrl(queue)).maxNumberOfMessages(10).waitTimeSeconds(1)
                .messageAttributeNames("All")).messages().stream().filter(m -> m.body().equals(body)).toList(),
                found -> !found.isEmpty());
        assertThat(back.get(0).messageAttributes()).doesNotContainKey("dead-letter-reason")
                .containsKey("redriven-by");
        assertThat(back.get(0).messageAttributes().get("redriven-by").stringValue()).isEqualTo(Stack.OPERATOR);
    }

    @Test
    void theProbesSeeTheTables() {
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'submissions tables' }.data.'leaderboard-20'", equalTo("reachable"));
    }

    /**
     * The backend's health through every client the packaged console builds (the native image included, under
     * {@code -Pnative}): SQS, DynamoDB, the Kubernetes API, and the SDK's own CloudWatch client, which no Quarkus
     * extension sets up (its queues' ages, from the local stack's CloudWatch).
     */
    @Test
    void theBackendIsReadThroughEveryClientCloudWatchIncluded() {
        // The stand-in measures every 5 s from the stack's start: its first datapoint of the queue first, since the
        // console keeps what it read for a minute.
        try (var cloudWatch = AwsClients.client(CloudWatchClient.builder(),
                stack.endpoints().get(ElasticMqServer.CLOUDWATCH), stack.credentials(), stack.region())) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !cloudWatch.getMetricData(r -> r
                    .startTime(Instant.now().minusSeconds(600)).endTime(Instant.now().plusSeconds(60))
                    .metricDataQueries(q -> q.id("age").metricStat(m -> m.stat("Maximum").period(60)
                            .metric(metric -> metric.namespace("AWS/SQS").metricName("ApproximateAgeOfOldestMessage")
                                    .dimensions(d -> d.name("QueueName").value("submissions"))))))
                    .metricDataResults().get(0).values().isEmpty());
        }
        operator().get("/api/backend").then().statusCode(200)
                .body("queues.name", hasItems("submissions", "launch-requests", "submission-events", "progress-reports"))
                .body("queues.find { it.name == 'submissions' }.oldest_message_age", notNullValue())
                .body("problems.findAll { it.contains('CloudWatch') }", empty());
    }

    private static RequestSpecification operator() {
        return given().header("Authorization", "Bearer " + Stack.TOKEN);
    }
}
