package org.carla.leaderboard.relay;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.RESULTS;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;
import static org.carla.leaderboard.relay.ResultsRelayTests.isTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;

import jakarta.inject.Inject;

import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.evalai.RecordedCall;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;

/**
 * The relay's health as messaging's pattern has it: ready on its two queues and its tables, alive while both consumers
 * poll, and EvalAI's outages a degraded state (wellness, a gauge), never unready.
 */
@QuarkusTest
@RelayStack
class HealthTests {

    @InjectLocalStack
    RunningStack stack;

    @Inject
    TestClock clock;

    @Inject
    CircuitBreakerMaintenance breakers;

    @BeforeEach
    @AfterEach
    void evalAiUp() {
        stack.evalAi().clearFaults();
        stack.evalAi().hostOfChallenge(true);
        breakers.resetAll();
    }

    @Test
    void readyWhenBothQueuesAndTheTablesAnswer() {
        given().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", not(hasItem("evalai")))
                .body("checks.find { it.name == 'sqs' }.data.'submission-events'", equalTo(true))
                .body("checks.find { it.name == 'sqs' }.data.'progress-reports'", equalTo(true))
                .body("checks.find { it.name == 'dynamodb' }.data.'leaderboard-20'", equalTo(true))
                .body("checks.find { it.name == 'dynamodb' }.data.'leaderboard-qualifiers'", equalTo(true));
    }

    @Test
    void aliveWhileBothConsumersPoll() {
        given().get("/q/health/live").then().statusCode(200)
                .body("checks.find { it.name == 'queue-consumers' }.data.'submission-events'",
                        startsWith("polling, last poll"))
                .body("checks.find { it.name == 'queue-consumers' }.data.'progress-reports'",
                        startsWith("polling, last poll"));
    }

    @Test
    void evalAiDownIsADegradedStateNotUnreadinessAndTheReportWaitsForIt() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        stack.evalAi().failFor(Duration.ofMinutes(5), 503);

        given.send(given.succeeded());

        await().atMost(PATIENCE).untilAsserted(() -> given().get("/q/health/well").then().statusCode(503)
                .body("checks.find { it.name == 'dependencies' }.data.evalai", startsWith("down")));
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/metrics").then().body(containsString(
                "leaderboard_dependency_up{dependency=\"evalai\"} 0.0"));

        stack.evalAi().clearFaults();

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        given().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'dependencies' }.data.evalai", equalTo("up"));
    }

    /**
     * A host token whose user is not a host of the challenge (EvalAI answers its updates 400 "not authorized") is a
     * configuration error, not a rejected report: the final report waits on its queue, never dead-lettered, while
     * /q/health/well and leaderboard_dependency_up{dependency="evalai-token"} say so; once the user is a host again,
     * the report reaches EvalAI.
     */
    @Test
    void aTokenThatIsNotAHostOfTheChallengeHoldsTheReportAndSaysSoUntilItIs() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        stack.evalAi().hostOfChallenge(false);

        given.send(given.succeeded());

        await().atMost(PATIENCE).untilAsserted(() -> given().get("/q/health/well").then().statusCode(503)
                .body("checks.find { it.name == 'dependencies' }.data.'evalai-token'",
                        containsString("not authorized")));
        given().get("/q/metrics").then().body(containsString(
                "leaderboard_dependency_up{dependency=\"evalai-token\"} 0.0"));
        given().get("/q/health/ready").then().statusCode(200);
        assertThat(EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk()))
                .extracting(RecordedCall::status).containsOnly(400);
        assertThat(given.recordStatus()).isEqualTo("FINISHED");

        stack.evalAi().hostOfChallenge(true);

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        assertThat(given.onEvalAi().status()).isEqualTo("finished");
        assertThat(stack.sqs().receiveMessage(r -> r.queueUrl(stack.deadLetterQueueUrl(
                QueuesConfig.SUBMISSION_EVENTS)).maxNumberOfMessages(10).waitTimeSeconds(1)).messages())
                .noneMatch(message -> message.body().contains("\"" + given.id() + "\""));
        given().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'dependencies' }.data.'evalai-token'", equalTo("up"));
    }
}
