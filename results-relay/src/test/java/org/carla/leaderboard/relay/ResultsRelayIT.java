package org.carla.leaderboard.relay;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackProfile;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The packaged results-relay (the jar, or the native executable under {@code -Pnative}) in its production
 * configuration, against ElasticMQ, DynamoDB Local, S3Proxy and the EvalAI stand-in: a run's lifecycle events and
 * progress reports become EvalAI's running, partial and final updates and the final record; a malformed report is
 * dead-lettered with its reason.
 */
@QuarkusIntegrationTest
@TestProfile(ResultsRelayIT.Stack.class)
class ResultsRelayIT {

    public static class Stack extends LocalStackProfile {
        public Stack() {
            super(Map.of("components", "sqs,dynamodb,s3,evalai"));
        }
    }

    private static final long SENSORS = 2077;
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @InjectLocalStack
    RunningStack stack;

    @Test
    void aRunsEventsAndReportsBecomeEvalAiUpdatesAndTheFinalRecord() {
        var given = GivenSubmission.submitted(stack, SENSORS).evalAiFiles(Map.of());

        given.send(given.jobStarted());
        await().atMost(PATIENCE).until(() -> "running".equals(given.onEvalAi().status()));
        assertThat(given.recordStatus()).isEqualTo("RUNNING");
        given.report(given.progress(1, 2));
        await().atMost(PATIENCE).until(() -> "partially_evaluated".equals(given.onEvalAi().status()));
        given.evalAiFiles(Map.of("driving_score", 41.25, "route_completion", 77.5, "infraction_penalty", 0.62))
                .allDone();
        given.report(given.progress(2, 2));
        given.send(given.succeeded());

        await().atMost(PATIENCE).until(() -> given.record().get("evalai_final_sent") != null
                && Boolean.TRUE.equals(given.record().get("evalai_final_sent").bool()));
        var onEvalAi = given.onEvalAi();
        assertThat(onEvalAi.status()).isEqualTo("finished");
        assertThat(onEvalAi.statusHistory()).containsSubsequence("running", "partially_evaluated", "finished");
        assertThat(onEvalAi.jobNames()).containsExactly(given.jobName());
        assertThat(onEvalAi.result()).contains("\"Driving score\": 41.25");
        assertThat(onEvalAi.stdout()).isEqualTo(given.stdout());
        var record = given.record();
        assertThat(record.get("submission_status").s()).isEqualTo("FINISHED");
        assertThat(record.get("driving_score").n()).isEqualTo("41.25");
        assertThat(record.get("route_completion").n()).isEqualTo("77.5");
    }

    @Test
    void aMalformedReportIsDeadLetteredWithItsReason() {
        String body = "{\"version\":2,\"type\":\"progress\",\"run\":1}";
        stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.PROGRESS_REPORTS)).messageBody(body));

        String dlq = stack.deadLetterQueueUrl(QueuesConfig.PROGRESS_REPORTS);
        List<Message> dead = await().atMost(PATIENCE).until(() -> stack.sqs().receiveMessage(
                r -> r.queueUrl(dlq).waitTimeSeconds(1).messageAttributeNames("All")).messages(), m -> !m.isEmpty());
        assertThat(dead).singleElement().satisfies(message -> {
            assertThat(message.body()).isEqualTo(body);
            assertThat(message.messageAttributes().get("dead-letter-reason").stringValue()).startsWith("malformed-");
        });
    }

    @Test
    void theProbesSeeBothQueuesAndTheTables() {
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
    }
}
