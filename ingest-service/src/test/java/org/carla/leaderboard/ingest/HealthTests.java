package org.carla.leaderboard.ingest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/** What Kubernetes and Prometheus see. */
@QuarkusTest
class HealthTests extends IntakeOnTheStack {

    @Test
    void readyWhenQueuesAndTablesAnswer() {
        given().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItem("sqs"))
                .body("checks.name", hasItem("dynamodb"))
                .body("checks.find { it.name == 'sqs' }.data.submissions", equalTo(true))
                .body("checks.find { it.name == 'sqs' }.data.'launch-requests'", equalTo(true))
                .body("checks.find { it.name == 'sqs' }.data.'submission-events'", equalTo(true))
                .body("checks.find { it.name == 'dynamodb' }.data.'leaderboard-20'", equalTo("ACTIVE"))
                .body("checks.find { it.name == 'dynamodb' }.data.'leaderboard-qualifiers'", equalTo("ACTIVE"));
    }

    @Test
    void aliveWhileTheConsumerPolls() {
        given().get("/q/health/live").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItem("queue-consumers"))
                .body("checks.find { it.name == 'queue-consumers' }.data.submissions", startsWith("polling, last poll"));
    }

    @Test
    void theDependenciesReadinessProbedAreReportedAsWellness() {
        given().get("/q/health/ready").then().statusCode(200);

        given().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'dependencies' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'dependencies' }.data.sqs", equalTo("up"))
                .body("checks.find { it.name == 'dependencies' }.data.dynamodb", equalTo("up"));
        assertThat(IntakeStack.metric("leaderboard_dependency_up", "dependency", "dynamodb")).isEqualTo(1.0);
    }

    @Test
    void metricsArePublishedForPrometheus() {
        given().get("/q/metrics").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("leaderboard_queue_received_total{queue=\"submissions\"}"));
    }
}
