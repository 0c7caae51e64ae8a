package org.carla.leaderboard.ingest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import java.util.Map;

import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.testing.LocalStackProfile;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The packaged ingest-service (the jar, or the native executable under {@code -Pnative}) in its production
 * configuration, against ElasticMQ, DynamoDB Local and the EvalAI stand-in: an EvalAI announcement becomes a record
 * and a launch request, a hostile one a dead letter with its reason, and Kubernetes' probes get their answers.
 */
@QuarkusIntegrationTest
@TestProfile(IngestServiceIT.Stack.class)
class IngestServiceIT extends IntakeOnTheStack {

    public static class Stack extends LocalStackProfile {
        public Stack() {
            super(Map.of("components", "sqs,dynamodb,evalai"));
        }
    }

    @Test
    void anAnnouncementBecomesARecordAndALaunchRequest() {
        long team = IntakeStack.uniqueTeam();
        var submission = stack.evalAi().createSubmission(
                NewSubmission.of(team, "Team Ünïcode <&> 🚗", IntakeStack.OPEN_PHASE, IntakeStack.IMAGE));

        LaunchRequest request = intake.awaitLaunchRequests(1).get(0);

        assertThat(request.submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(request.submission().teamId()).isEqualTo(team);
        assertThat(request.submission().teamName()).isEqualTo("Team Ünïcode <&> 🚗");
        assertThat(request.submission().leaderboard()).isEqualTo("leaderboard-10");
        assertThat(request.submission().track()).isEqualTo("SENSORS");
        assertThat(request.run()).isEqualTo(1);
        assertThat(request.imageUri()).isEqualTo(IntakeStack.IMAGE);
        assertThat(request.trackSpec().bucket()).as("the bucket deploy/aws creates, as the ConfigMap names it")
                .isEqualTo(stack.evaluation().leaderboards().get("leaderboard-10").bucket())
                .startsWith("carla-leaderboard-10-");
        var record = intake.record("leaderboard-10", team, submission.pk());
        assertThat(record.get("submission_status").s()).isEqualTo("SUBMITTED");
        assertThat(record.get("team_name").s()).isEqualTo("Team Ünïcode <&> 🚗");
        assertThat(record.get("run").n()).isEqualTo("1");
        assertThat(record.get("status_history").l()).singleElement()
                .satisfies(entry -> assertThat(entry.m().get("by").s()).isEqualTo("ingest-service"));
        intake.assertNothingOn(QueuesConfig.SUBMISSION_EVENTS);
        intake.assertNoDeadLetters();
        assertThat(IntakeStack.metric("ingest_submissions_launched_total", "resume", "false")).isPositive();
    }

    @Test
    void aHostileImageIsDeadLetteredWithItsReasonAndNothingIsLaunched() {
        String body = IntakeStack.announcement(1, IntakeStack.OPEN_PHASE, IntakeStack.uniqueTeam(),
                "registry.example/agent:v1; rm -rf / #");

        intake.announce(body);

        Message dead = intake.awaitDeadLetters(1).get(0);
        assertThat(dead.body()).isEqualTo(body);
        assertThat(IntakeStack.attribute(dead, "dead-letter-reason")).isEqualTo("malformed-invalid-value");
        assertThat(IntakeStack.attribute(dead, "dead-letter-error")).contains("submitted_image_uri");
        intake.assertNothingOn(QueuesConfig.LAUNCH_REQUESTS);
    }

    @Test
    void theProbesSeeTheConsumerPollingAndItsQueuesAndTables() {
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'queue-consumers' }.data.submissions", startsWith("polling"));
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'sqs' }.data.'launch-requests'", equalTo(true))
                .body("checks.find { it.name == 'dynamodb' }.data.'leaderboard-20'", equalTo("ACTIVE"));
        given().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'dependencies' }.data.dynamodb", equalTo("up"));
    }
}
