package org.carla.leaderboard.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/** Submissions that must not run still get a record and an event, so results-relay reports their final status. */
@QuarkusTest
class SubmissionNotLaunchedTests extends IntakeOnTheStack {

    @Test
    void submissionCancelledBeforeItWasTakenIsNotLaunched() {
        long team = IntakeStack.uniqueTeam();
        double before = IntakeStack.metric("ingest_submissions_not_launched_total", "reason", "cancelled");
        // EvalAI answers slowly, so the participant's cancel lands before the intake reads the submission.
        stack.evalAi().latency(Duration.ofMillis(1500));
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "quitters", 1187, IntakeStack.IMAGE));
        stack.evalAi().cancel(submission.pk());

        var event = (NotLaunched) intake.awaitSubmissionEvents(1).get(0);

        assertThat(event.reason()).isEqualTo(NotLaunched.Reason.CANCELLED);
        assertThat(event.submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(event.submission().teamId()).isEqualTo(team);
        assertThat(event.submission().track()).isEqualTo("SENSORS");
        intake.assertNothingOn(QueuesConfig.LAUNCH_REQUESTS);
        var record = intake.record("leaderboard-10", team, submission.pk());
        assertThat(record.get("submission_status").s()).isEqualTo("SUBMITTED");
        assertThat(record.get("team_name").s()).isEqualTo("quitters");
        assertThat(IntakeStack.metric("ingest_submissions_not_launched_total", "reason", "cancelled"))
                .isEqualTo(before + 1);
    }

    @Test
    void teamWithoutTheQualifierIsNotAllowedOnAGatedTrack() {
        long team = IntakeStack.uniqueTeam();
        double before = IntakeStack.metric("ingest_submissions_not_launched_total", "reason", "not-allowed");
        // Qualified for another track only.
        intake.qualify(team, "MAP");
        var submission = stack.evalAi().createSubmission(
                NewSubmission.of(team, "eager", IntakeStack.GATED_PHASE, IntakeStack.IMAGE));

        var event = (NotLaunched) intake.awaitSubmissionEvents(1).get(0);

        assertThat(event.reason()).isEqualTo(NotLaunched.Reason.NOT_ALLOWED);
        assertThat(event.submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(event.submission().leaderboard()).isEqualTo("leaderboard-20");
        assertThat(event.submission().track()).isEqualTo("SENSORS");
        intake.assertNothingOn(QueuesConfig.LAUNCH_REQUESTS);
        assertThat(intake.record("leaderboard-20", team, submission.pk()).get("submission_status").s())
                .isEqualTo("SUBMITTED");
        assertThat(IntakeStack.metric("ingest_submissions_not_launched_total", "reason", "not-allowed"))
                .isEqualTo(before + 1);
    }

    @Test
    void qualifiedTeamIsLaunchedOnTheGatedTrack() {
        long team = IntakeStack.uniqueTeam();
        intake.qualify(team, "SENSORS");
        var submission = stack.evalAi().createSubmission(
                NewSubmission.of(team, "qualified", IntakeStack.GATED_PHASE, IntakeStack.IMAGE));

        var request = intake.awaitLaunchRequests(1).get(0);

        assertThat(request.submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(request.trackSpec().track()).isEqualTo("SENSORS");
        intake.assertNothingOn(QueuesConfig.SUBMISSION_EVENTS);
    }

    @Test
    void qualifierTrackIsOpenToEveryone() {
        long team = IntakeStack.uniqueTeam();
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "newcomer", 2075, IntakeStack.IMAGE));

        var request = intake.awaitLaunchRequests(1).get(0);

        assertThat(request.submission().submissionPk()).isEqualTo(submission.pk());
        assertThat(request.trackSpec().qualifiesFor()).isEqualTo("SENSORS");
    }
}
