package org.carla.leaderboard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.MAP;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.RESULTS;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;
import static org.carla.leaderboard.relay.ResultsRelayTests.isTrue;
import static org.carla.leaderboard.relay.TestClock.MINUTE;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.evalai.RecordedCall;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/**
 * The relay's EvalAI cadence as production runs it (every run asked about once a minute, each update riding on its
 * run's next list), on the test clock: a minute passes when a test says so. Against the EvalAI stand-in.
 */
@QuarkusTest
@RelayStack
class EvalAiOutboxTests {

    /** Real time in which the relay's ticks run without its clock moving on. */
    private static final Duration TICKS = Duration.ofSeconds(3);

    @InjectLocalStack
    RunningStack stack;

    @Inject
    TestClock clock;

    @Test
    void aCancelIsNoticedForEveryRunNotOverByItsChallengesListWithNoReadOfItsOwn() {
        var submitted = GivenSubmission.submitted(stack, SENSORS);
        var pending = GivenSubmission.submitted(stack, SENSORS).pending();
        var running = running(GivenSubmission.submitted(stack, MAP));
        var notCancelled = running(GivenSubmission.submitted(stack, SENSORS));
        int before = stack.evalAi().calls().size();
        for (var given : List.of(submitted, pending, running)) {
            stack.evalAi().cancel(given.pk());
        }

        clock.minutesUntil(() -> submitted.cancelControl() && pending.cancelControl() && running.cancelControl());

        for (var given : List.of(submitted, pending, running)) {
            assertThat(given.record().get(SubmissionTable.CANCEL_REQUESTED_RUN).n()).isEqualTo("1");
        }
        assertThat(pending.recordStatus()).isEqualTo("PENDING");
        assertThat(notCancelled.record()).doesNotContainKey(SubmissionTable.CANCEL_REQUESTED_RUN);
        assertThat(notCancelled.cancelControl()).isFalse();
        var during = since(before);
        assertThat(EvalAiCalls.lists(during, submitted.identity.challengePk())).isNotEmpty();
        for (var given : List.of(submitted, pending, running, notCancelled)) {
            assertThat(EvalAiCalls.about(during, given.pk())).as("calls about %s", given.id()).isEmpty();
        }
    }

    @Test
    void theCancelOfAResumedSubmissionIsRecordedForItsCurrentRun() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of());
        given.send(given.jobFinished(JobFinished.Outcome.FAILED, "DeadlineExceeded", List.of()));
        clock.minutesUntil(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));
        stack.evalAi().resume(given.pk());
        given.resumed().pending();
        stack.evalAi().cancel(given.pk());

        clock.minutesUntil(given::cancelControl);

        assertThat(given.record().get(SubmissionTable.CANCEL_REQUESTED_RUN).n()).isEqualTo("2");
    }

    @Test
    void aRunOverIsNeitherListedNorCancelled() {
        var given = GivenSubmission.submitted(stack, SENSORS);
        given.send(given.notLaunched(NotLaunched.Reason.NOT_ALLOWED));
        clock.minutesUntil(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));
        int before = stack.evalAi().calls().size();

        clock.advance(MINUTE.multipliedBy(2));

        await().during(TICKS).atMost(TICKS.plusSeconds(5)).until(() -> !given.cancelControl());
        assertThat(given.record()).doesNotContainKey(SubmissionTable.CANCEL_REQUESTED_RUN);
        assertThat(EvalAiCalls.about(since(before), given.pk())).isEmpty();
    }

    /**
     * A running run's news waits for the run's next list, which guards it: the partial update comes right after a list
     * of the challenge, with no read of its own (a real change costs one EvalAI call); so does every later news.
     */
    @Test
    void newsWaitsForTheRunsNextListWhichGuardsIt() {
        var given = running(GivenSubmission.submitted(stack, SENSORS).results(Map.of()));

        given.report(given.progress(1, 2));
        await().atMost(PATIENCE).until(() -> routesDone(given).equals(Optional.of("1")));
        await().during(TICKS).atMost(TICKS.plusSeconds(5))
                .until(() -> EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).isEmpty());
        clock.minutesUntil(() -> !EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).isEmpty());

        var calls = stack.evalAi().calls();
        assertThat(EvalAiCalls.reads(calls, given.pk())).as("no read of the submission").isEmpty();
        assertListedRightBefore(given, EvalAiCalls.partialUpdates(calls, given.pk()).get(0));

        given.results(Map.of("driving_score", 40.0, "route_completion", 90.0));
        given.report(given.progress(2, 2));
        clock.minutesUntil(() -> EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).size() == 2);
        // Other routes done alone (the same results) are news; its repeat is not.
        given.report(given.progress(1, 2));
        given.report(given.progress(1, 2));
        clock.minutesUntil(() -> EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).size() == 3);
        clock.advance(MINUTE.multipliedBy(2));
        await().during(TICKS).atMost(TICKS.plusSeconds(5))
                .until(() -> EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).size() == 3);
        assertThat(EvalAiCalls.reads(stack.evalAi().calls(), given.pk())).isEmpty();
    }

    /**
     * A cancel made while news waits for its run's list is seen by that list: the update is never sent, so it cannot
     * take EvalAI out of cancelled; the cancel is passed on.
     */
    @Test
    void aCancelWhileNewsWaitsIsSeenByTheListAndTheNewsIsNeverSent() {
        var given = running(GivenSubmission.submitted(stack, SENSORS).results(Map.of("driving_score", 10.0,
                "route_completion", 50.0)));
        given.report(given.progress(1, 2));
        await().atMost(PATIENCE).until(() -> routesDone(given).equals(Optional.of("1")));

        stack.evalAi().cancel(given.pk());

        clock.minutesUntil(given::cancelControl);
        assertThat(given.record().get(SubmissionTable.CANCEL_REQUESTED_RUN).n()).isEqualTo("1");
        assertThat(EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk())).isEmpty();
        assertThat(given.onEvalAi().status()).isEqualTo("cancelled");
    }

    /**
     * A run's whole life: EvalAI is asked about it once a minute, and each update costs one call. Its running and
     * partial updates each follow a list with no read of their own; its final status goes at once (the Job's end
     * reported twice by job-launcher's two replicas sends it once) and is read back at the run's next turn, a minute
     * after its last list, which sets evalai_final_sent.
     */
    @Test
    void aRunsLifeAsksAboutItOnceAMinuteAndEachUpdateCostsOneCall() {
        var given = running(GivenSubmission.submitted(stack, SENSORS).pending().results(RESULTS));
        given.report(given.progress(1, 2));
        clock.minutesUntil(() -> !EvalAiCalls.partialUpdates(stack.evalAi().calls(), given.pk()).isEmpty());
        listedNow(given);

        given.send(given.succeeded(), given.succeeded());

        await().atMost(PATIENCE).until(() -> EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk()).size() == 1);
        assertThat(given.onEvalAi().status()).isEqualTo(given.recordStatus().toLowerCase(Locale.ROOT));
        await().during(TICKS).atMost(TICKS.plusSeconds(5))
                .until(() -> EvalAiCalls.reads(stack.evalAi().calls(), given.pk()).isEmpty());
        clock.minutesUntil(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));

        var calls = stack.evalAi().calls();
        var finals = EvalAiCalls.finalUpdates(calls, given.pk());
        assertThat(finals).as("one final update for two reports of the Job's end").hasSize(1);
        var reads = EvalAiCalls.reads(calls, given.pk());
        assertThat(reads).as("the only read is the one confirming the final status").hasSize(1);
        assertThat(calls.indexOf(reads.get(0))).isGreaterThan(calls.indexOf(finals.get(0)));
        assertListedRightBefore(given, EvalAiCalls.runningUpdates(calls, given.pk()).get(0));
        assertListedRightBefore(given, EvalAiCalls.partialUpdates(calls, given.pk()).get(0));
    }

    /**
     * A relay that recorded a run's start and stopped before the run's next list (SIGKILL, its Lease lost) leaves
     * EvalAI showing submitted: the relay that finds the run RUNNING with no partial results sent, having seen it only
     * pending, tells EvalAI running with the run's Job after the run's next list.
     */
    @Test
    void aRunningRunThisRelayNeverSawStartIsToldRunningAfterItsNextList() {
        var given = GivenSubmission.submitted(stack, SENSORS).pending();
        long challenge = given.identity.challengePk();
        int listed = EvalAiCalls.lists(stack.evalAi().calls(), challenge).size();
        clock.minutesUntil(() -> EvalAiCalls.lists(stack.evalAi().calls(), challenge).size() > listed + 1);
        given.runningAsRecordedElsewhere();

        clock.minutesUntil(() -> !EvalAiCalls.runningUpdates(stack.evalAi().calls(), given.pk()).isEmpty());

        var calls = stack.evalAi().calls();
        var running = EvalAiCalls.runningUpdates(calls, given.pk());
        assertThat(running).hasSize(1);
        assertThat(EvalAiCalls.body(running.get(0)).path("job_name").asText()).isEqualTo(given.jobName());
        assertThat(given.onEvalAi().status()).isEqualTo("running");
        assertThat(EvalAiCalls.reads(calls, given.pk())).as("the list before it is its guard").isEmpty();
    }

    /**
     * A resume in the minute between a run's final update and its confirming read: the confirmation finds the record on
     * the next run and is dropped; it never sends the first run's final status again over the resumed submission.
     */
    @Test
    void aResumeBeforeTheFinalsConfirmationIsNotOverwrittenByIt() {
        var given = running(GivenSubmission.submitted(stack, SENSORS).pending());
        given.send(given.succeeded());
        await().atMost(PATIENCE).until(() -> EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk()).size() == 1);

        stack.evalAi().resume(given.pk());
        given.resumed();
        clock.advance(MINUTE.multipliedBy(2));

        await().during(TICKS).atMost(TICKS.plusSeconds(5)).until(() -> "resuming".equals(given.onEvalAi().status()));
        assertThat(EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk())).as("no final update again").hasSize(1);
        assertThat(given.record().get(SubmissionTable.RUN).n()).isEqualTo("2");
    }

    /**
     * A host resumes a failed submission as soon as EvalAI shows it failed, before ingest-service read EvalAI's
     * announcement of the resume: the confirmation finds the record still on the first run, and EvalAI showing
     * resuming, which it allows from failed only. The final status was shown: it is confirmed, never sent again over
     * the resume (which would make ingest-service take the resume for a repeated announcement of a failed run).
     */
    @Test
    void aResumeOnEvalAiNotRecordedYetConfirmsTheFailedStatusItFollows() {
        var given = running(GivenSubmission.submitted(stack, SENSORS).pending());
        given.send(given.jobFinished(JobFinished.Outcome.FAILED, "BackoffLimitExceeded", List.of()));
        await().atMost(PATIENCE).until(() -> EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk()).size() == 1);

        stack.evalAi().resume(given.pk());
        clock.minutesUntil(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));

        assertThat(given.onEvalAi().status()).isEqualTo("resuming");
        assertThat(EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk())).as("no final update again").hasSize(1);
        assertThat(given.record().get(SubmissionTable.RUN).n()).isEqualTo("1");
    }

    /**
     * EvalAI's list of a challenge's cancelled submissions has no pages, and a resumed submission keeps its first
     * submitted_at: listing from the oldest run's submission on would read the challenge's whole cancelled history.
     * Each list is bounded on both sides instead, around the runs it covers: a resumed submission of 30 days ago is
     * listed in a window of its own, and the cancels of the days between are never read; its cancel is still noticed.
     */
    @Test
    void theListsReadNoneOfTheChallengesCancelledHistoryBetweenItsRuns() {
        Instant now = clock.instant();
        var history = new ArrayList<Instant>();
        for (int i = 0; i < 5; i++) {
            var old = stack.evalAi().createSubmission(NewSubmission.of(900 + i, "Team " + (900 + i), SENSORS,
                    "registry.example/team/agent:1").submittedAt(now.minus(Duration.ofDays(3)).plusSeconds(i)));
            stack.evalAi().cancel(old.pk());
            history.add(old.submittedAt());
        }
        var resumed = GivenSubmission.submitted(stack, SENSORS, now.minus(Duration.ofDays(30))).resumed();
        var today = GivenSubmission.submitted(stack, SENSORS).pending();
        int before = stack.evalAi().calls().size();
        stack.evalAi().cancel(resumed.pk());

        clock.minutesUntil(resumed::cancelControl);

        var lists = EvalAiCalls.lists(since(before), resumed.identity.challengePk());
        assertThat(lists).isNotEmpty().allSatisfy(list -> {
            var after = param(list, "submitted_after").map(Instant::parse);
            var before2 = param(list, "submitted_before").map(Instant::parse);
            assertThat(after).as("bounded below: %s", list.path()).isPresent();
            assertThat(before2).as("bounded above: %s", list.path()).isPresent();
            assertThat(history).noneMatch(at -> at.isAfter(after.get()) && at.isBefore(before2.get()));
        });
        assertThat(today.record()).doesNotContainKey(SubmissionTable.CANCEL_REQUESTED_RUN);
        // Over, so that later lists do not cover it.
        resumed.send(resumed.notLaunched(NotLaunched.Reason.CANCELLED));
        clock.minutesUntil(() -> isTrue(resumed.record().get(SubmissionTable.FINAL_SENT)));
    }

    /**
     * A relay killed between sending a final report and confirming it: the Job's end comes back to the next relay,
     * which reads what EvalAI shows first. Shown: confirmed, with no second final update. Not shown (killed before the
     * send): sent then, once, and confirmed at the run's next turn.
     */
    @Test
    void aFinalRecordedBeforeIsReadFirstAndSentAgainOnlyIfEvalAiDoesNotShowIt() {
        var sent = running(GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone());
        var notSent = running(GivenSubmission.submitted(stack, SENSORS).results(RESULTS).allDone());
        sent.recordedFinal("FAILED");
        sent.finalSentByAnotherRelay("failed");
        notSent.recordedFinal("FINISHED");
        int before = stack.evalAi().calls().size();

        sent.send(sent.succeeded());
        notSent.send(notSent.succeeded());

        clock.minutesUntil(() -> isTrue(sent.record().get(SubmissionTable.FINAL_SENT))
                && isTrue(notSent.record().get(SubmissionTable.FINAL_SENT)));
        var during = since(before);
        assertThat(EvalAiCalls.finalUpdates(during, sent.pk())).as("EvalAI showed it: not sent again").isEmpty();
        assertThat(EvalAiCalls.reads(during, sent.pk())).hasSize(1);
        var notSentFinals = EvalAiCalls.finalUpdates(during, notSent.pk());
        assertThat(notSentFinals).hasSize(1);
        var reads = EvalAiCalls.reads(during, notSent.pk());
        assertThat(reads).hasSize(2);
        assertThat(during.indexOf(reads.get(0))).as("read first").isLessThan(during.indexOf(notSentFinals.get(0)));
        assertThat(notSent.onEvalAi().status()).isEqualTo("finished");
    }

    /** Its pod runs, and the relay told EvalAI so after the run's list. */
    private GivenSubmission running(GivenSubmission given) {
        given.send(given.jobStarted());
        clock.minutesUntil(() -> "running".equals(given.onEvalAi().status()));
        listedNow(given);
        return given;
    }

    /**
     * The run's last ask a list at the relay's present: minutesUntil may have moved the clock a minute past the list it
     * waited for, which would make the run due again at once.
     */
    private void listedNow(GivenSubmission given) {
        long challenge = given.identity.challengePk();
        int listed = EvalAiCalls.lists(stack.evalAi().calls(), challenge).size();
        clock.advance(MINUTE);
        await().atMost(PATIENCE).until(() -> EvalAiCalls.lists(stack.evalAi().calls(), challenge).size() > listed);
    }

    /** The last call about the run or its challenge's list before {@code update} is a list of the challenge. */
    private void assertListedRightBefore(GivenSubmission given, RecordedCall update) {
        var calls = stack.evalAi().calls();
        long challenge = given.identity.challengePk();
        var before = calls.subList(0, calls.indexOf(update)).stream()
                .filter(call -> EvalAiCalls.about(List.of(call), given.pk()).size() == 1
                        || EvalAiCalls.lists(List.of(call), challenge).size() == 1)
                .toList();
        assertThat(EvalAiCalls.lists(List.of(before.get(before.size() - 1)), challenge))
                .as("a list is the last call about the run before " + update.path()).hasSize(1);
    }

    private List<RecordedCall> since(int index) {
        var calls = stack.evalAi().calls();
        return calls.subList(index, calls.size());
    }

    private static Optional<String> routesDone(GivenSubmission given) {
        return Optional.ofNullable(given.record().get(SubmissionTable.ROUTES_DONE)).map(value -> value.n());
    }

    private static Optional<String> param(RecordedCall call, String name) {
        int query = call.path().indexOf('?');
        if (query < 0) {
            return Optional.empty();
        }
        for (String pair : call.path().substring(query + 1).split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0 && pair.substring(0, equals).equals(name)) {
                return Optional.of(URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
            }
        }
        return Optional.empty();
    }
}
