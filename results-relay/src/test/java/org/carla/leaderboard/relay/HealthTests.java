package org.carla.leaderboard.relay;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.RESULTS;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;
import static org.carla.leaderboard.relay.ResultsRelayTests.isTrue;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;

import jakarta.inject.Inject;

import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;

/**
 * The relay's health as messaging's pattern has it: ready on its two queues and its tables, alive while both consumers
 * poll, and EvalAI's outages a degraded state (wellness, a gauge), never unready.
 */
@QuarkusTest
@QuarkusTestResource(value = LocalStackResource.class, initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,s3,evalai"),
        @ResourceArg(name = "evaluation.phases.2078.hide-logs", value = "true") })
class HealthTests {

    @InjectLocalStack
    RunningStack stack;

    @Inject
    CircuitBreakerMaintenance breakers;

    @BeforeEach
    @AfterEach
    void evalAiUp() {
        stack.evalAi().clearFaults();
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
        given().get("/q/metrics").then().body(org.hamcrest.Matchers.containsString(
                "leaderboard_dependency_up{dependency=\"evalai\"} 0.0"));

        stack.evalAi().clearFaults();

        await().atMost(Duration.ofSeconds(60)).until(() -> isTrue(given.record().get("evalai_final_sent")));
        given().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'dependencies' }.data.evalai", equalTo("up"));
    }
}
