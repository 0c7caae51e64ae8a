package org.carla.leaderboard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.RESULTS;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;
import static org.carla.leaderboard.relay.ResultsRelayTests.isTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.evalai.RecordedCall;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/** SQS delivers late and twice, EvalAI goes down: nothing moves backwards, nothing is sent twice, nothing is lost. */
@QuarkusTest
@RelayStack
class RelayOrderingTests {

    @InjectLocalStack
    RunningStack stack;

    @Inject
    TestClock clock;

    @Inject
    MeterRegistry registry;

    @Inject
    CircuitBreakerMaintenance breakers;

    /** Each test starts with EvalAI up and the client's circuit breakers closed, whatever ran before it. */
    @BeforeEach
    void evalAiUp() {
        stack.evalAi().clearFaults();
        breakers.resetAll();
    }

    @AfterEach
    void evalAiRecovers() {
        stack.evalAi().clearFaults();
    }

    @Test
    void duplicateAndLateEventsNeitherRepeatNorUndoTheFinalReport() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        var finished = given.succeeded();
        double droppedBefore = dropped();

        given.send(finished, finished);
        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        // Late: a progress and the Job's start, delivered after the end; and the end a third time.
        given.report(given.progress(1, 2));
        given.send(given.jobStarted(), finished);

        await().atMost(PATIENCE).until(() -> dropped() - droppedBefore >= 4);
        var calls = stack.evalAi().calls();
        assertThat(EvalAiCalls.finalUpdates(calls, given.pk())).hasSize(1);
        assertThat(EvalAiCalls.partialUpdates(calls, given.pk())).isEmpty();
        assertThat(EvalAiCalls.runningUpdates(calls, given.pk())).isEmpty();
        var onEvalAi = given.onEvalAi();
        assertThat(onEvalAi.status()).isEqualTo("finished");
        assertThat(onEvalAi.statusHistory()).containsExactly("submitted", "finished");
        var record = given.record();
        assertThat(record.get("submission_status").s()).isEqualTo("FINISHED");
        assertThat(record.get("start_time").s()).isEqualTo("-");
        assertThat(record).doesNotContainKey("job_name");
    }

    @Test
    void aProgressOvertakenByTheFinalReportIsDropped() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS);
        given.send(given.notLaunched(NotLaunched.Reason.CANCELLED));
        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        double droppedBefore = dropped();

        given.report(given.progress(2, 2));

        await().atMost(PATIENCE).until(() -> dropped() > droppedBefore);
        assertThat(given.recordStatus()).isEqualTo("CANCELLED");
        assertThat(given.onEvalAi().status()).isEqualTo("cancelled");
        assertThat(EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk())).isEmpty();
    }

    @Test
    void evalAiAnswering503ForAWhileDelaysTheReportButLosesNothing() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        // The final's endpoint fails as often as one delivery tries (3 calls in the test profile): the event goes back
        // to the queue once, and its next delivery finds the final recorded, so it reads EvalAI first before sending
        // it. Only that endpoint fails: the outbox's own lists, on its real-time ticks, would take failures at random.
        stack.evalAi().failNext(3, 503, "PUT", "/update_submission/");

        given.send(given.succeeded());

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        var calls = stack.evalAi().calls();
        var finals = EvalAiCalls.finalUpdates(calls, given.pk());
        assertThat(finals).extracting(RecordedCall::status).containsExactly(503, 503, 503, 200);
        assertThat(EvalAiCalls.reads(calls.subList(calls.indexOf(finals.get(2)), calls.indexOf(finals.get(3))),
                given.pk())).extracting(RecordedCall::status).as("read first").contains(200);
        assertThat(given.onEvalAi().status()).isEqualTo("finished");
        assertThat(given.recordStatus()).isEqualTo("FINISHED");
        assertThat(metrics()).contains("relay_evalai_calls_total{answer=\"unavailable\",kind=\"final\"}")
                .contains("ft_retry_retries_total");
    }

    @Test
    void anEventEvalAiRefusesLongerThanTheFormerBudgetWaitsOnItsQueueAndIsReportedOnceEvalAiIsBack() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        // Longer than the former budget (5 receives, then dead-lettered): a failed receive waits at most 2 s in the
        // test profile, so 20 s is 8 receives or more.
        stack.evalAi().failFor(Duration.ofSeconds(20), 502);

        given.send(given.succeeded());

        // The decision is recorded while EvalAI is down; the event waits for EvalAI on its queue.
        await().atMost(PATIENCE).until(() -> "FINISHED".equals(given.recordStatus()));
        assertThat(given.record().get("evalai_final_sent").bool()).isFalse();
        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        assertThat(given.onEvalAi().status()).isEqualTo("finished");
        assertThat(deadLetters("\"" + given.jobName() + "\"")).isEmpty();
    }

    @Test
    void aMalformedEventIsDeadLetteredAndTheNextOneStillRelayed() {
        var given = GivenSubmission.submitted(stack, SENSORS);
        stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.SUBMISSION_EVENTS))
                .messageBody("{\"version\": 2, \"type\": \"job-finished\", \"marker\": \"" + given.id() + "\"}"));

        given.send(given.notLaunched(NotLaunched.Reason.CANCELLED));

        clock.minutesUntil(() -> isTrue(given.record().get("evalai_final_sent")));
        var dead = await().atMost(PATIENCE).until(() -> deadLetters("\"" + given.id() + "\""), list -> !list.isEmpty());
        assertThat(dead.get(0).messageAttributes().get("dead-letter-reason").stringValue())
                .isEqualTo("malformed-missing-field");
    }

    @Test
    void anEventOfAnUnknownLeaderboardIsDeadLetteredWithTheReason() {
        var stranger = new SubmissionIdentity(987_654_321L, 1, 2077, 5, "Team", "leaderboard-99", "SENSORS");
        var event = NotLaunched.of(stranger, 1, NotLaunched.Reason.CANCELLED, null, TestClock.now());
        stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.SUBMISSION_EVENTS))
                .messageBody(EventCodec.write(event)));

        var dead = await().atMost(PATIENCE).until(() -> deadLetters("987654321"), list -> !list.isEmpty());
        assertThat(dead.get(0).messageAttributes().get("dead-letter-reason").stringValue())
                .isEqualTo("unknown-leaderboard");
        assertThat(dead.get(0).messageAttributes().get("dead-letter-error").stringValue())
                .contains("leaderboard-99");
    }

    private List<Message> deadLetters(String needle) {
        return stack.sqs().receiveMessage(r -> r.queueUrl(stack.deadLetterQueueUrl(QueuesConfig.SUBMISSION_EVENTS))
                .maxNumberOfMessages(10).waitTimeSeconds(1).messageAttributeNames("All")
                .messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages().stream()
                .filter(message -> message.body().contains(needle))
                .toList();
    }

    private static String metrics() {
        return RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
    }

    /** Events dropped because their submission was already final. */
    private double dropped() {
        return registry.find("relay.events.dropped").tag("reason", "final").counters().stream()
                .mapToDouble(Counter::count).sum();
    }
}
