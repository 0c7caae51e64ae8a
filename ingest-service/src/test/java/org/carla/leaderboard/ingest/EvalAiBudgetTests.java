package org.carla.leaderboard.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.evalai.EvalAiBudgetConfig;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.evalai.RecordedCall;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/**
 * The intake's share of EvalAI's throttle of the host token: a burst of announcements larger than what EvalAI lets a
 * user make in its minute is spread over the next minutes within the intake's share, and EvalAI throttles none of it.
 * EvalAI's minute is 5 s in these tests (the stand-in's throttle period, which the intake budgets over as in
 * production).
 */
@QuarkusTest
@IntakeLocalStack
class EvalAiBudgetTests {

    static final Duration MINUTE = Duration.ofSeconds(5);
    static final int BURST = 65;

    @InjectLocalStack
    RunningStack stack;

    @Inject
    EvalAiBudgetConfig budgets;

    @Test
    void aBurstLargerThanEvalAisThrottleIsSpreadWithinTheIntakesShareNotRefused() {
        var intake = new IntakeStack(stack);
        intake.purge();
        int before = stack.evalAi().calls().size();
        var submissions = new ArrayList<Long>();
        for (int i = 0; i < BURST; i++) {
            submissions.add(stack.evalAi().createSubmission(NewSubmission.of(IntakeStack.uniqueTeam(), "burst " + i,
                    IntakeStack.OPEN_PHASE, IntakeStack.IMAGE)).pk());
        }

        var launched = new HashSet<Long>();
        Instant deadline = Instant.now().plusSeconds(120);
        while (!launched.containsAll(submissions) && Instant.now().isBefore(deadline)) {
            intake.receiveLaunchRequests().forEach(request -> launched.add(request.submission().submissionPk()));
        }

        assertThat(launched).containsAll(submissions);
        var calls = stack.evalAi().calls().subList(before, stack.evalAi().calls().size());
        assertThat(calls).extracting(RecordedCall::status).as("EvalAI throttled nothing").doesNotContain(429);
        assertThat(mostInAnyWindow(calls.stream().map(RecordedCall::time).toList(), MINUTE))
                .as("reads in any of EvalAI's minutes").isLessThanOrEqualTo(budgets.ingestService());
        intake.assertNoDeadLetters();
    }

    private static int mostInAnyWindow(List<Instant> times, Duration window) {
        int most = 0;
        for (Instant end : times) {
            most = Math.max(most, (int) times.stream()
                    .filter(t -> t.isAfter(end.minus(window)) && !t.isAfter(end)).count());
        }
        return most;
    }
}
