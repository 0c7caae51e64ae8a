package org.carla.leaderboard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackResource;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The cancel check on its schedule: a run that sends nothing at all (its pod waits for capacity) is still cancelled;
 * a running run's news waits for its next list, which guards the update.
 */
@QuarkusTest
@TestProfile(CancelCadenceTests.EveryTenSeconds.class)
@QuarkusTestResource(value = LocalStackResource.class, initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,s3,evalai"),
        @ResourceArg(name = "evaluation.phases.2078.hide-logs", value = "true") })
class CancelCadenceTests {

    /** Long enough that a report reaches the relay before its run is due again (the check ticks every second). */
    static final Duration EVERY = Duration.ofSeconds(10);
    static final Duration WAIT = PATIENCE.plus(EVERY);

    @InjectLocalStack
    RunningStack stack;

    @Test
    void aCancelOfARunWaitingForCapacityIsNoticedWithNoEventAtAll() {
        var given = GivenSubmission.submitted(stack, SENSORS).pending();

        stack.evalAi().cancel(given.pk());

        await().atMost(WAIT).until(given::cancelControl);
        assertThat(given.record().get(SubmissionTable.CANCEL_REQUESTED_RUN).n()).isEqualTo("1");
        assertThat(given.recordStatus()).isEqualTo("PENDING");
    }

    /**
     * A running run's news right after its start (whose status read was EvalAI's last ask about it) waits for the
     * run's next list, which guards it: the partial update comes right after a list of the challenge, with no status
     * read of its own (issue 16: a real change costs one EvalAI call).
     */
    @Test
    void newsWaitsForTheRunsNextListWhichGuardsIt() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of());
        given.send(given.jobStarted());
        await().atMost(WAIT).until(() -> !EvalAiCalls.runningUpdates(stack.evalAi().calls(), given.pk()).isEmpty());

        given.report(given.progress(1, 2));

        await().atMost(WAIT).until(() -> !EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).isEmpty());
        var calls = stack.evalAi().calls();
        var partial = EvalAiCalls.partialUpdates(calls, given.pk()).get(0);
        var lastRunning = EvalAiCalls.runningUpdates(calls, given.pk()).get(0);
        var between = calls.subList(calls.indexOf(lastRunning) + 1, calls.indexOf(partial));
        assertThat(EvalAiCalls.reads(between, given.pk())).as("no status read before the partial update").isEmpty();
        var before = calls.subList(0, calls.indexOf(partial)).stream()
                .filter(call -> EvalAiCalls.about(List.of(call), given.pk()).size() == 1
                        || EvalAiCalls.lists(List.of(call), given.identity.challengePk()).size() == 1)
                .toList();
        assertThat(EvalAiCalls.lists(List.of(before.get(before.size() - 1)), given.identity.challengePk()))
                .as("the challenge's list is the last call about the run before its partial update").hasSize(1);

        // The next news, once the first was relayed, is relayed too: other results, then other routes done alone (the
        // same digest; its heartbeats after it are no news to the record, which holds the routes already).
        given.results(Map.of("driving_score", 40.0, "route_completion", 90.0));
        given.report(given.progress(2, 2));
        await().atMost(WAIT).until(() -> EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).size() == 2);
        given.report(given.progress(1, 2));
        given.report(given.progress(1, 2));
        await().atMost(WAIT).until(() -> EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).size() == 3);
    }

    /**
     * A cancel made while a run's news waits for its next list is seen by that list: the waiting update is never sent,
     * so it cannot take EvalAI out of {@code cancelled}; the run's cancel is passed on.
     */
    @Test
    void aCancelWhileNewsWaitsIsSeenByTheListAndTheNewsIsNeverSent() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of("driving_score", 10.0, "route_completion", 50.0));
        given.send(given.jobStarted());
        await().atMost(WAIT).until(() -> !EvalAiCalls.runningUpdates(stack.evalAi().calls(), given.pk()).isEmpty());
        given.report(given.progress(1, 2));
        await().atMost(WAIT).until(() -> given.record().containsKey(SubmissionTable.ROUTES_DONE)
                && given.record().get(SubmissionTable.ROUTES_DONE).n().equals("1"));
        assertThat(EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk())).as("the news waits").isEmpty();

        stack.evalAi().cancel(given.pk());

        await().atMost(WAIT).until(given::cancelControl);
        assertThat(given.record().get(SubmissionTable.CANCEL_REQUESTED_RUN).n()).isEqualTo("1");
        assertThat(EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk())).isEmpty();
        assertThat(stack.evalAi().submission(given.pk()).orElseThrow().status()).isEqualTo("cancelled");
    }

    /**
     * Issue 16: a run's whole life asks EvalAI about it at most once an interval, and each update costs one call. Its
     * {@code running} update and its partial update each follow a list, with no read of their own; the final status is
     * shown on EvalAI at once, and the read confirming it waits for the run's next turn, an interval after the last list
     * that asked about the run, with {@code evalai_final_sent} set by it. The Job's end reported twice (job-launcher's
     * two replicas) sends nothing again.
     */
    @Test
    void aRunsLifeAsksAboutItOnceAnIntervalAndEachUpdateCostsOneCall() {
        var given = GivenSubmission.submitted(stack, SENSORS).pending()
                .results(Map.of("driving_score", 40.0, "route_completion", 90.0));
        given.send(given.jobStarted());
        await().atMost(WAIT).until(() -> !EvalAiCalls.runningUpdates(stack.evalAi().calls(), given.pk()).isEmpty());
        given.report(given.progress(1, 2));
        await().atMost(WAIT).until(() -> !EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).isEmpty());

        given.send(given.succeeded(), given.succeeded());

        await().atMost(WAIT.plus(EVERY)).until(() -> given.record().containsKey(SubmissionTable.FINAL_SENT)
                && given.record().get(SubmissionTable.FINAL_SENT).bool());
        var calls = stack.evalAi().calls();
        long challenge = given.identity.challengePk();
        var finals = EvalAiCalls.finalUpdates(calls, given.pk());
        assertThat(finals).as("one final update for two reports of the Job's end").hasSize(1);
        assertThat(stack.evalAi().submission(given.pk()).orElseThrow().status()).as("EvalAI shows the final status")
                .isEqualTo(given.recordStatus().toLowerCase(Locale.ROOT));
        var reads = EvalAiCalls.reads(calls, given.pk());
        assertThat(reads).as("the only read of the submission is the one confirming its final status").hasSize(1);
        assertThat(calls.indexOf(reads.get(0))).isGreaterThan(calls.indexOf(finals.get(0)));
        for (var update : List.of(EvalAiCalls.runningUpdates(calls, given.pk()).get(0),
                EvalAiCalls.partialUpdates(calls, given.pk()).get(0))) {
            var before = calls.subList(0, calls.indexOf(update)).stream()
                    .filter(call -> EvalAiCalls.about(List.of(call), given.pk()).size() == 1
                            || EvalAiCalls.lists(List.of(call), challenge).size() == 1)
                    .toList();
            assertThat(EvalAiCalls.lists(List.of(before.get(before.size() - 1)), challenge))
                    .as("a list is the last call about the run before " + update.path()).hasSize(1);
        }
        var lists = EvalAiCalls.lists(calls.subList(0, calls.indexOf(finals.get(0))), challenge);
        assertThat(Duration.between(lists.get(lists.size() - 1).time(), reads.get(0).time()))
                .as("the confirming read waits for the run's next turn")
                .isGreaterThanOrEqualTo(EVERY.minusMillis(500));
    }

    /**
     * A relay that recorded a run's start and stopped before the run's next list (SIGKILL, its lease lost) leaves EvalAI
     * showing {@code submitted}: the relay that finds the run RUNNING with no partial results sent, without having
     * seen it before, tells EvalAI {@code running} with the run's Job after the run's next list.
     */
    @Test
    void aRunningRunThisRelayNeverSawStartIsToldRunningAfterItsNextList() {
        var given = GivenSubmission.submitted(stack, SENSORS).pending().runningAsRecordedElsewhere();

        await().atMost(WAIT.plus(EVERY)).until(() -> !EvalAiCalls.runningUpdates(stack.evalAi().calls(), given.pk())
                .isEmpty());
        var calls = stack.evalAi().calls();
        var running = EvalAiCalls.runningUpdates(calls, given.pk());
        assertThat(running).hasSize(1);
        assertThat(EvalAiCalls.body(running.get(0)).path("job_name").asText()).isEqualTo(given.jobName());
        assertThat(stack.evalAi().submission(given.pk()).orElseThrow().status()).isEqualTo("running");
        assertThat(EvalAiCalls.reads(calls, given.pk())).as("the list before it is its guard").isEmpty();
    }

    /**
     * A resume in the minute between a run's final update and its confirming read: the confirmation finds the record on
     * the next run and is dropped. It never sends the first run's final status again over the resumed submission
     * (seen in the chaos run: EvalAI entered FAILED twice for a resumed submission that then finished).
     */
    @Test
    void aResumeBeforeTheFinalsConfirmationIsNotOverwrittenByIt() {
        var given = GivenSubmission.submitted(stack, SENSORS).pending();
        given.send(given.jobStarted());
        await().atMost(WAIT).until(() -> !EvalAiCalls.runningUpdates(stack.evalAi().calls(), given.pk()).isEmpty());
        given.send(given.succeeded());
        await().atMost(WAIT).until(() -> EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk()).size() == 1);
        assertThat(EvalAiCalls.reads(stack.evalAi().calls(), given.pk())).as("confirmation not made yet").isEmpty();

        stack.evalAi().resume(given.pk());
        given.resumed();

        await().atMost(WAIT.plus(EVERY)).during(EVERY.plusSeconds(2)).until(() -> "resuming".equals(
                stack.evalAi().submission(given.pk()).orElseThrow().status()));
        assertThat(EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk())).as("no final update again").hasSize(1);
        assertThat(given.record().get(SubmissionTable.RUN).n()).isEqualTo("2");
    }

    public static class EveryTenSeconds implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("relay.cancel-check.every", EVERY.toSeconds() + "s");
        }
    }
}
