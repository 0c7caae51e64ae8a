package org.carla.leaderboard.ingest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;

import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackResource;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;

/**
 * EvalAI down for longer than the intake used to try: the submission waits on its queue and is launched once EvalAI
 * is back, nothing is dead-lettered, and meanwhile the service says it is degraded without leaving service.
 */
@QuarkusTest
@QuarkusTestResource(value = LocalStackResource.class,
        initArgs = @ResourceArg(name = "components", value = "sqs,dynamodb,evalai"))
class EvalAiOutageTests {

    /** The whole retry budget before: 5 receives of 5 client attempts, then the message was dead-lettered. */
    static final int FORMER_BUDGET_CALLS = 25;

    @InjectLocalStack
    RunningStack stack;

    IntakeStack intake;

    @BeforeEach
    void purge() {
        intake = new IntakeStack(stack);
        intake.purge();
    }

    @Test
    void evalAiAnswering503LongerThanTheFormerRetryBudgetDelaysTheLaunchAndDeadLettersNothing() {
        double deadLetteredBefore = deadLettered();
        stack.evalAi().failFor(Duration.ofMinutes(10), 503);
        var submission = stack.evalAi().createSubmission(
                NewSubmission.of(IntakeStack.uniqueTeam(), "patient", IntakeStack.OPEN_PHASE, IntakeStack.IMAGE));

        await().atMost(Duration.ofSeconds(120)).until(() -> calls(submission.pk()) > FORMER_BUDGET_CALLS);
        assertDegradedButInService();
        intake.assertNothingOn(QueuesConfig.LAUNCH_REQUESTS);

        stack.evalAi().clearFaults();

        LaunchRequest request = intake.awaitLaunchRequests(1).get(0);
        assertThat(request.submission().submissionPk()).isEqualTo(submission.pk());
        assertRecovered();
        intake.assertNoDeadLetters();
        assertThat(deadLettered()).isEqualTo(deadLetteredBefore);
    }

    @Test
    void evalAiTimingOutDelaysTheLaunchAndDeadLettersNothing() {
        double deadLetteredBefore = deadLettered();
        // Longer than the client's read timeout (2 s in the tests): every call times out.
        stack.evalAi().latency(Duration.ofSeconds(3));
        var submission = stack.evalAi().createSubmission(
                NewSubmission.of(IntakeStack.uniqueTeam(), "timed out", IntakeStack.OPEN_PHASE, IntakeStack.IMAGE));

        // Every attempt of the first handling timed out, and the message came back for another.
        await().atMost(Duration.ofSeconds(90)).until(() -> calls(submission.pk()) > 5);
        assertDegradedButInService();

        stack.evalAi().clearFaults();

        LaunchRequest request = intake.awaitLaunchRequests(1).get(0);
        assertThat(request.submission().submissionPk()).isEqualTo(submission.pk());
        assertRecovered();
        intake.assertNoDeadLetters();
        assertThat(deadLettered()).isEqualTo(deadLetteredBefore);
    }

    /** EvalAI down shows in the gauge and the wellness check; liveness and readiness stay up. */
    private static void assertDegradedButInService() {
        assertThat(IntakeStack.metric("leaderboard_dependency_up", "dependency", "evalai")).isZero();
        given().get("/q/health/well").then().statusCode(503)
                .body("checks.find { it.name == 'dependencies' }.data.evalai", startsWith("down since "));
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/health/live").then().statusCode(200);
    }

    private static void assertRecovered() {
        assertThat(IntakeStack.metric("leaderboard_dependency_up", "dependency", "evalai")).isEqualTo(1.0);
        given().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'dependencies' }.data.evalai", equalTo("up"));
    }

    private long calls(long submissionPk) {
        return stack.evalAi().calls().stream().filter(c -> c.path().equals("/api/jobs/submission/" + submissionPk))
                .count();
    }

    private static double deadLettered() {
        return IntakeStack.metric("leaderboard_queue_dead_lettered_total", "queue", QueuesConfig.SUBMISSIONS);
    }
}
