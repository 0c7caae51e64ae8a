package org.carla.leaderboard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.MAP;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;

import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackResource;
import org.carla.leaderboard.relay.service.CancelCheck;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A cancel on EvalAI is noticed for every submission whose run is not over, whether it waits for its Job, waits for
 * capacity or runs, with one EvalAI call per challenge and no status read per submission (the check is off in the
 * test profile; each test runs one check itself; {@link CancelCadenceTests} runs it on its schedule).
 */
@QuarkusTest
@QuarkusTestResource(value = LocalStackResource.class, initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,s3,evalai"),
        @ResourceArg(name = "evaluation.phases.2078.hide-logs", value = "true") })
class CancelCheckTests {

    @InjectLocalStack
    RunningStack stack;

    @Inject
    CancelCheck check;

    @Test
    void aCancelIsNoticedForEveryRunNotOverWithOneListCallPerChallenge() {
        var submitted = GivenSubmission.submitted(stack, SENSORS);
        var pending = GivenSubmission.submitted(stack, SENSORS).pending();
        var running = running(GivenSubmission.submitted(stack, MAP));
        var notCancelled = running(GivenSubmission.submitted(stack, SENSORS));
        for (var given : List.of(submitted, pending, running)) {
            stack.evalAi().cancel(given.pk());
        }
        int listsBefore = EvalAiCalls.lists(stack.evalAi().calls(), submitted.identity.challengePk()).size();
        var calls = stack.evalAi().calls().size();

        check.check();

        for (var given : List.of(submitted, pending, running)) {
            assertThat(given.record().get(SubmissionTable.CANCEL_REQUESTED_RUN).n()).isEqualTo("1");
            assertThat(given.cancelControl()).as("control object of %s", given.id()).isTrue();
        }
        assertThat(notCancelled.record()).doesNotContainKey(SubmissionTable.CANCEL_REQUESTED_RUN);
        assertThat(notCancelled.cancelControl()).isFalse();
        var during = stack.evalAi().calls().subList(calls, stack.evalAi().calls().size());
        assertThat(EvalAiCalls.lists(stack.evalAi().calls(), submitted.identity.challengePk()))
                .hasSize(listsBefore + 1);
        for (var given : List.of(submitted, pending, running, notCancelled)) {
            assertThat(EvalAiCalls.reads(during, given.pk())).as("status reads of %s", given.id()).isEmpty();
        }
    }

    @Test
    void theCancelOfAResumedSubmissionIsRecordedForItsCurrentRun() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(Map.of());
        given.send(given.jobFinished(JobFinished.Outcome.FAILED, "DeadlineExceeded", List.of()));
        await().atMost(PATIENCE).until(() -> ResultsRelayTests.isTrue(given.record().get(SubmissionTable.FINAL_SENT)));
        stack.evalAi().resume(given.pk());
        given.resumed().pending();
        stack.evalAi().cancel(given.pk());

        check.check();

        assertThat(given.record().get(SubmissionTable.CANCEL_REQUESTED_RUN).n()).isEqualTo("2");
        assertThat(given.cancelControl()).isTrue();
    }

    @Test
    void aRunAlreadyOverIsLeftAlone() {
        var given = GivenSubmission.submitted(stack, SENSORS);
        given.send(given.notLaunched(org.carla.leaderboard.domain.event.NotLaunched.Reason.NOT_ALLOWED));
        await().atMost(PATIENCE).until(() -> ResultsRelayTests.isTrue(given.record().get(SubmissionTable.FINAL_SENT)));

        check.check();

        assertThat(given.record()).doesNotContainKey(SubmissionTable.CANCEL_REQUESTED_RUN);
        assertThat(given.cancelControl()).isFalse();
    }

    /** Its pod runs, and the relay has told EvalAI so (the job-started's calls are over). */
    private GivenSubmission running(GivenSubmission given) {
        given.send(given.jobStarted());
        await().atMost(PATIENCE).until(() -> "running".equals(given.onEvalAi().status()));
        return given;
    }
}
