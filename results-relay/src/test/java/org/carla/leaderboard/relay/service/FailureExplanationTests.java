package org.carla.leaderboard.relay.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.junit.jupiter.api.Test;

class FailureExplanationTests {

    private static final SubmissionIdentity SUBMISSION = new SubmissionIdentity(7, 1, 2077, 3, "team",
            "leaderboard-20", "SENSORS");

    @Test
    void namesKubernetesReasonsInWords() {
        assertThat(FailureExplanation.reason(finished(JobFinished.Outcome.FAILED, "BackoffLimitExceeded")))
                .contains("failed more often than the track allows").contains("BackoffLimitExceeded");
        assertThat(FailureExplanation.reason(finished(JobFinished.Outcome.FAILED, "DeadlineExceeded")))
                .contains("longer than the track's deadline");
        assertThat(FailureExplanation.reason(finished(JobFinished.Outcome.DELETED, null)))
                .isEqualTo("its Job was deleted before it finished.");
        assertThat(FailureExplanation.reason(finished(JobFinished.Outcome.DELETED, JobFinished.CAPACITY_WAIT_EXCEEDED)))
                .contains("waited for a GPU node longer than the cluster allows and never ran")
                .contains("no GPU time");
        assertThat(FailureExplanation.reason(finished(JobFinished.Outcome.SUCCEEDED, null)))
                .isEqualTo("not every container finished its work.");
    }

    @Test
    void anImageThatCouldNotBePulledIsNamedWithTheRuntimesReason() {
        String image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/team/agent:v1";
        String why = "failed to pull and unpack image \"" + image + "\": failed to resolve reference \"" + image
                + "\": not found";
        var agent = new ContainerOutcome("agent-1", 0, null, "ErrImagePull", null, image, why, null);
        var simulator = new ContainerOutcome("simulator-1", 0, null, null, null, "carla-leaderboard/carla:0.9.15", null, null);
        JobFinished unpulled = JobFinished.of(SUBMISSION, 1, "job", JobFinished.Outcome.DELETED,
                JobFinished.IMAGE_PULL_FAILED, 1, null, Instant.now(), List.of(simulator, agent), Instant.now());

        assertThat(FailureExplanation.reason(unpulled)).isEqualTo("your image " + image + " could not be pulled: "
                + why + ".");

        var carla = new ContainerOutcome("simulator-1", 0, null, "ImagePullBackOff", null, "carla:9", "denied", null);
        JobFinished ours = JobFinished.of(SUBMISSION, 1, "job", JobFinished.Outcome.DELETED,
                JobFinished.IMAGE_PULL_FAILED, 1, null, Instant.now(), List.of(carla), Instant.now());
        assertThat(FailureExplanation.reason(ours)).startsWith("the evaluation's image carla:9 could not be pulled:"
                + " denied; the organisers are told");
    }

    @Test
    void failingContainersAreThoseThatEndedWithAnError() {
        var containers = List.of(new ContainerOutcome("simulator-1", 0, 0, "Completed", null),
                new ContainerOutcome("agent-1", 2, 0, "Completed", null),
                new ContainerOutcome("agent-2", 4, 1, "Error", null),
                new ContainerOutcome("logcopy", 0, null, null, null));

        assertThat(FailureExplanation.failingContainers(containers)).extracting(ContainerOutcome::name)
                .containsExactly("agent-2");
    }

    @Test
    void whenThePairsSpentTheCrashBudgetTheRestartedPairContainersAreShownNotTheOnesStoppedWithThePod() {
        var containers = List.of(new ContainerOutcome("simulator-1", 0, 143, "Error", null),
                new ContainerOutcome("agent-1", 0, 143, "Error", null),
                new ContainerOutcome("simulator-2", 4, 143, "Error", null),
                new ContainerOutcome("agent-2", 5, 1, "Error", null),
                new ContainerOutcome("logcopy", 0, 3, "Error", null));
        JobFinished failed = JobFinished.of(SUBMISSION, 1, "job", JobFinished.Outcome.FAILED, "PodFailurePolicy", 1,
                null, Instant.now(), containers, Instant.now());

        assertThat(FailureExplanation.reason(failed)).isEqualTo("its simulators and agents crashed and were restarted"
                + " more often than the track allows (PodFailurePolicy).");
        assertThat(FailureExplanation.failingContainers(failed)).extracting(ContainerOutcome::name)
                .containsExactly("simulator-2", "agent-2");
    }

    @Test
    void withoutAnErrorTheRestartedContainersAreTheSuspects() {
        var containers = List.of(new ContainerOutcome("simulator-1", 3, null, null, null),
                new ContainerOutcome("agent-1", 0, 0, "Completed", null));

        assertThat(FailureExplanation.failingContainers(containers)).extracting(ContainerOutcome::name)
                .containsExactly("simulator-1");
    }

    private static JobFinished finished(JobFinished.Outcome outcome, String reason) {
        return JobFinished.of(SUBMISSION, 1, "job", outcome, reason, 2, null, null, List.of(), Instant.now());
    }
}
