package org.carla.leaderboard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.RESULTS;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;
import static org.carla.leaderboard.relay.ResultsRelayTests.isTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.record.StuckRules;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.evalai.RecordedCall;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The relay's stuck rules with production's bounds on the relay's test clock, checked every second of real time
 * ({@link ProductionBounds}), against ElasticMQ, DynamoDB Local, S3Proxy and the EvalAI stand-in: a final report whose
 * message was lost while EvalAI failed is sent again until EvalAI shows it, once; a RUNNING run that stops reporting is
 * marked, then failed once with a message the participant reads; a run over, or one that moved on to its next run, is
 * left alone.
 */
@QuarkusTest
@TestProfile(StuckRunsTests.ProductionBounds.class)
@RelayStack
class StuckRunsTests {

    static final Duration NO_PROGRESS_AFTER = Duration.parse(StuckRules.NO_PROGRESS_AFTER);
    static final Duration NO_PROGRESS_FAIL_AFTER = Duration.parse(StuckRules.NO_PROGRESS_FAIL_AFTER);
    static final Duration UNCONFIRMED_FINAL_AFTER = Duration.parse(StuckRules.UNCONFIRMED_FINAL_AFTER);
    /** Real time in which the rules are checked a few times, their clock standing still. */
    static final Duration CHECKS = Duration.ofSeconds(3);

    @Inject
    MeterRegistry registry;

    @InjectLocalStack
    RunningStack stack;

    @Inject
    TestClock clock;

    @Inject
    CircuitBreakerMaintenance breakers;

    /** EvalAI up and the client's circuit breakers closed, whatever ran before. */
    @BeforeEach
    @AfterEach
    void evalAiUp() {
        stack.evalAi().clearFaults();
        breakers.resetAll();
    }

    @Test
    void aFinalReportWhoseMessageWasLostWhileEvalAiFailedIsSentAgainUntilEvalAiShowsItOnce() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        double sentBefore = mends("unconfirmed-final", "final-sent");
        stack.evalAi().failFor(Duration.ofMinutes(5), 503);

        given.send(given.succeeded());
        // Step 1 of the final report is done (the record is final), EvalAI refuses step 2.
        await().atMost(PATIENCE).until(() -> "FINISHED".equals(given.recordStatus()));
        assertThat(isTrue(given.record().get(SubmissionTable.FINAL_SENT))).isFalse();
        // The event's message is lost (dead-lettered after its receives, purged, expired): only the rule is left.
        String queue = stack.queueUrl(QueuesConfig.SUBMISSION_EVENTS);
        await().atMost(PATIENCE).until(() -> {
            stack.sqs().purgeQueue(r -> r.queueUrl(queue));
            return messagesIn(queue) == 0;
        });
        clock.advance(UNCONFIRMED_FINAL_AFTER.plusSeconds(1));
        await().atMost(PATIENCE).until(() -> gauge("unconfirmed-final") >= 1);
        assertThat(given.onEvalAi().status()).isNotEqualTo("finished");

        stack.evalAi().clearFaults();

        clock.minutesUntil(() -> "finished".equals(given.onEvalAi().status()));
        clock.minutesUntil(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));
        // Checks go on every second, past the bound again: none sends it again once EvalAI confirmed it.
        clock.advance(UNCONFIRMED_FINAL_AFTER.plusSeconds(1));
        await().during(CHECKS).atMost(CHECKS.plusSeconds(5))
                .until(() -> accepted(EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk())).size() == 1);
        var update = EvalAiCalls.body(accepted(EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk())).get(0));
        assertThat(update.path("submission_status").asText()).isEqualTo("finished");
        assertThat(update.path("result").asText()).contains("41.25");
        assertThat(mends("unconfirmed-final", "final-sent") - sentBefore).isEqualTo(1);
        assertThat(relayed("stuck-unconfirmed-final")).isGreaterThanOrEqualTo(1);
        assertThat(given.recordStatus()).isEqualTo("FINISHED");
    }

    @Test
    void aRunningRunThatStopsReportingIsMarkedThenFailedOnceWithAMessageTheParticipantReads() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of());
        double markedBefore = mends("no-progress", "marked");
        double failedBefore = mends("no-progress", "failed");
        given.send(given.jobStarted(TestClock.now()));
        await().atMost(PATIENCE).until(() -> "RUNNING".equals(given.recordStatus()));
        var report = given.progress(1, 2);
        given.report(report);
        await().atMost(PATIENCE).until(() -> given.record().containsKey(SubmissionTable.LAST_PROGRESS_TIME));

        // Then nothing: logcopy died without a goodbye. Silent for less than the bound: left alone.
        clock.advance(NO_PROGRESS_AFTER.minusSeconds(30));
        await().during(CHECKS).atMost(CHECKS.plusSeconds(5))
                .until(() -> !given.record().containsKey(SubmissionTable.NO_PROGRESS_SINCE));
        // Past it: marked, still RUNNING.
        clock.advance(Duration.ofSeconds(31));
        await().atMost(PATIENCE).until(() -> given.record().containsKey(SubmissionTable.NO_PROGRESS_SINCE));
        assertThat(given.recordStatus()).isEqualTo("RUNNING");
        // Past the fail bound: failed, and EvalAI shows it at the run's next turn.
        clock.advance(NO_PROGRESS_FAIL_AFTER.minus(NO_PROGRESS_AFTER));
        await().atMost(PATIENCE).until(() -> "FAILED".equals(given.recordStatus()));
        clock.minutesUntil(() -> "failed".equals(given.onEvalAi().status()));

        var record = given.record();
        assertThat(record.get(SubmissionTable.STATUS).s()).isEqualTo("FAILED");
        assertThat(record.get(SubmissionTable.NO_PROGRESS_SINCE).s())
                .isEqualTo(record.get(SubmissionTable.LAST_PROGRESS_TIME).s());
        // Marked while RUNNING, once, before it failed.
        var history = history(record);
        var marked = history.stream().filter(entry -> entry.containsKey(SubmissionTable.HISTORY_DETAIL)
                && entry.get(SubmissionTable.HISTORY_DETAIL).s().startsWith("no progress for")).toList();
        assertThat(marked).hasSize(1);
        assertThat(marked.get(0).get(SubmissionTable.HISTORY_STATUS).s()).isEqualTo("RUNNING");
        assertThat(history.indexOf(marked.get(0))).isEqualTo(history.size() - 2);
        assertThat(history.get(history.size() - 1).get(SubmissionTable.HISTORY_STATUS).s()).isEqualTo("FAILED");
        assertThat(record.get(SubmissionTable.FAILURE_REASON).s())
                .startsWith("The submission failed: its evaluation reported no progress for");

        clock.minutesUntil(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(8))
                .until(() -> EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk()).size() == 1);
        var onEvalAi = given.onEvalAi();
        assertThat(onEvalAi.stderr()).startsWith("The submission failed: its evaluation reported no progress for")
                .contains("it can be resumed");
        assertThat(mends("no-progress", "marked") - markedBefore).isEqualTo(1);
        assertThat(mends("no-progress", "failed") - failedBefore).isEqualTo(1);
    }

    @Test
    void aRunOverAndARunThatMovedOnAreLeftAlone() {
        // Over: started ten minutes ago, never reported, finished and confirmed.
        var over = GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone();
        over.send(over.jobStarted(), over.succeeded());
        clock.minutesUntil(() -> isTrue(over.record().get(SubmissionTable.FINAL_SENT)));
        // Moved on: run 1 ran, then the host resumed it; run 2 waits for its Job.
        var resumed = GivenSubmission.submitted(stack, SENSORS).results(Map.of());
        resumed.send(resumed.jobStarted(TestClock.now()));
        await().atMost(PATIENCE).until(() -> "RUNNING".equals(resumed.recordStatus()));
        resumed.resumed();
        var overBefore = over.record();
        var resumedBefore = resumed.record();

        // Longer than the fail bound, with a check every second.
        clock.advance(NO_PROGRESS_FAIL_AFTER.plusMinutes(1));
        await().during(CHECKS).atMost(CHECKS.plusSeconds(5))
                .until(() -> over.record().equals(overBefore) && resumed.record().equals(resumedBefore));
        var calls = stack.evalAi().calls();
        assertThat(EvalAiCalls.finalUpdates(calls, over.pk())).hasSize(1);
        assertThat(EvalAiCalls.finalUpdates(calls, resumed.pk())).isEmpty();
        assertThat(resumed.record().get(SubmissionTable.RUN).n()).isEqualTo("2");
        assertThat(resumed.recordStatus()).isEqualTo("SUBMITTED");
    }

    private static List<Map<String, AttributeValue>> history(Map<String, AttributeValue> record) {
        return record.get(SubmissionTable.HISTORY).l().stream().map(AttributeValue::m).toList();
    }

    private static List<RecordedCall> accepted(List<RecordedCall> calls) {
        return calls.stream().filter(call -> call.status() / 100 == 2).toList();
    }

    private int messagesIn(String queue) {
        var attributes = stack.sqs().getQueueAttributes(r -> r.queueUrl(queue).attributeNames(
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)).attributes();
        return attributes.values().stream().mapToInt(Integer::parseInt).sum();
    }

    private double mends(String rule, String mend) {
        return registry.find("leaderboard.stuck.mends").tag("rule", rule).tag("mend", mend).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private double gauge(String rule) {
        return registry.find("leaderboard.stuck.submissions").tag("rule", rule).gauges().stream()
                .mapToDouble(Gauge::value).sum();
    }

    private double relayed(String type) {
        return registry.find("relay.events.relayed").tag("type", type).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    /**
     * Production's bounds (the module's {@code %test} profile puts them a day or more away, out of the other tests'
     * way), on the relay's clock, which the tests move on; the checks every second of real time instead of every
     * {@value StuckRules#CHECK_EVERY}.
     */
    public static class ProductionBounds implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("stuck.check-every", "1s", "stuck.no-progress-after", StuckRules.NO_PROGRESS_AFTER,
                    "stuck.no-progress-fail-after", StuckRules.NO_PROGRESS_FAIL_AFTER,
                    "stuck.unconfirmed-final-after", StuckRules.UNCONFIRMED_FINAL_AFTER);
        }
    }
}
