package org.carla.leaderboard.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.record.StuckRules;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * The stuck rule {@code unlaunched} against the real ElasticMQ, DynamoDB Local and EvalAI stand-in: a run whose launch
 * request was lost (taken off the queue here, as a dead-letter or a purge would) has it published again, once per
 * bound, until job-launcher claims the run; a submission cancelled meanwhile gets its not-launched event instead; an
 * EvalAI outage only delays the mend. Production's bound on the intake's test clock, checked every second of real time
 * ({@link ProductionBound}): the tests move the clock over the bound.
 */
@QuarkusTest
@TestProfile(UnlaunchedRunsTests.ProductionBound.class)
class UnlaunchedRunsTests extends IntakeOnTheStack {

    static final Duration BOUND = Duration.parse(StuckRules.UNLAUNCHED_AFTER);
    /** Real time in which the rule is checked a few times, its clock standing still. */
    static final Duration CHECKS = Duration.ofSeconds(3);

    public static class ProductionBound implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("stuck.check-every", "1s");
        }
    }

    @Inject
    TestClock clock;

    @Test
    void aLostLaunchRequestIsPublishedAgainOncePerBoundUntilTheRunIsClaimed() {
        long team = IntakeStack.uniqueTeam();
        double mendsBefore = IntakeStack.metric("leaderboard_stuck_mends_total", "rule", "unlaunched");
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "lost", 1187, IntakeStack.IMAGE));
        Message first = awaitLaunchRequest(submission.pk());
        // Nobody takes it: job-launcher never sees this request.
        await().during(CHECKS).atMost(CHECKS.multipliedBy(2)).until(() -> receive(launchRequestOf(submission.pk()))
                .isEmpty());

        clock.advance(BOUND.plusSeconds(1));
        Message second = awaitLaunchRequest(submission.pk());
        // The rule notes the time right after it publishes.
        Instant secondAt = await().atMost(CHECKS).until(() -> launchRequested(team, submission.pk()),
                Optional::isPresent).orElseThrow();
        await("once per bound").during(CHECKS).atMost(CHECKS.multipliedBy(2))
                .until(() -> receive(launchRequestOf(submission.pk())).isEmpty());
        clock.advance(BOUND.plusSeconds(1));
        awaitLaunchRequest(submission.pk());
        Instant thirdAt = await().atMost(CHECKS).until(() -> launchRequested(team, submission.pk()),
                at -> !at.equals(Optional.of(secondAt))).orElseThrow();

        LaunchRequest again = EventCodec.parseLaunchRequest(second.body());
        assertThat(again.run()).isEqualTo(1);
        assertThat(again.resume()).isFalse();
        assertThat(again.imageUri()).isEqualTo(IntakeStack.IMAGE);
        assertThat(again.submission()).isEqualTo(EventCodec.parseLaunchRequest(first.body()).submission());
        var record = intake.record("leaderboard-10", team, submission.pk());
        // Counted from when the record became SUBMITTED, then from each request published again.
        Instant submitted = Instant.parse(record.get("status_history").l().get(0).m().get("at").s());
        assertThat(Duration.between(submitted, secondAt)).isGreaterThan(BOUND);
        assertThat(Duration.between(secondAt, thirdAt)).as("once per bound").isGreaterThan(BOUND);
        assertThat(record.get("submission_status").s()).isEqualTo("SUBMITTED");
        assertThat(record.get("run").n()).isEqualTo("1");
        assertThat(record.get("status_history").l()).as("a mend changes no status").hasSize(1);
        assertThat(IntakeStack.metric("leaderboard_stuck_mends_total", "rule", "unlaunched", "mend",
                "announced-again")).isGreaterThanOrEqualTo(mendsBefore + 2);

        // job-launcher claims the run: the rule leaves it alone.
        claim("leaderboard-10", team, submission.pk(), 1);
        drain(submission.pk());
        clock.advance(BOUND.multipliedBy(2));
        await().during(CHECKS).atMost(CHECKS.multipliedBy(2))
                .until(() -> receive(launchRequestOf(submission.pk())).isEmpty());
        intake.assertNoDeadLetters();
    }

    @Test
    void aResumedRunIsAskedForAgainWithItsRunAndResume() throws Exception {
        long team = IntakeStack.uniqueTeam();
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "resumed", 1187, IntakeStack.IMAGE));
        awaitLaunchRequest(submission.pk());
        claim("leaderboard-10", team, submission.pk(), 1);
        intake.failOnEvalAi(submission.challengePk(), 1187, submission.pk());
        intake.setStatus("leaderboard-10", team, submission.pk(), "FAILED");
        stack.evalAi().resume(submission.pk());
        assertThat(EventCodec.parseLaunchRequest(awaitLaunchRequest(submission.pk()).body()).run()).isEqualTo(2);

        clock.advance(BOUND.plusSeconds(1));
        LaunchRequest again = EventCodec.parseLaunchRequest(awaitLaunchRequest(submission.pk()).body());

        assertThat(again.run()).isEqualTo(2);
        assertThat(again.resume()).isTrue();
        assertThat(intake.record("leaderboard-10", team, submission.pk()).get("resumes").n()).isEqualTo("1");
        claim("leaderboard-10", team, submission.pk(), 2);
    }

    @Test
    void aSubmissionCancelledWhileUnlaunchedGetsItsNotLaunchedEventAndNoLaunch() {
        long team = IntakeStack.uniqueTeam();
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "gone", 1187, IntakeStack.IMAGE));
        awaitLaunchRequest(submission.pk());

        stack.evalAi().cancel(submission.pk());
        clock.advance(BOUND.plusSeconds(1));

        var events = new ArrayList<NotLaunched>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            receive(QueuesConfig.SUBMISSION_EVENTS, message -> true).stream()
                    .map(m -> EventCodec.parseSubmissionEvent(m.body()))
                    .filter(e -> e instanceof NotLaunched && e.submission().submissionPk() == submission.pk())
                    .forEach(e -> events.add((NotLaunched) e));
            return !events.isEmpty();
        });
        assertThat(events.get(0).reason()).isEqualTo(NotLaunched.Reason.CANCELLED);
        assertThat(events.get(0).run()).isEqualTo(1);
        assertThat(receive(launchRequestOf(submission.pk()))).as("no launch of a cancelled submission").isEmpty();
    }

    @Test
    void anEvalAiOutageDelaysTheMendAndLosesNothing() {
        long team = IntakeStack.uniqueTeam();
        var submission = stack.evalAi().createSubmission(NewSubmission.of(team, "patient", 1187, IntakeStack.IMAGE));
        awaitLaunchRequest(submission.pk());
        stack.evalAi().failFor(Duration.ofMinutes(5), 503);

        // The rule's pass stops at the first submission EvalAI does not answer for (records of other tests, maybe).
        Instant down = Instant.now();
        clock.advance(BOUND.plusSeconds(1));
        await().atMost(Duration.ofSeconds(30)).until(() -> stack.evalAi().calls().stream()
                .anyMatch(c -> c.path().startsWith("/api/jobs/submission/") && c.status() == 503
                        && c.time().isAfter(down)));
        assertThat(receive(launchRequestOf(submission.pk()))).isEmpty();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> IntakeStack.metric("leaderboard_stuck_submissions", "rule", "unlaunched") > 0);

        stack.evalAi().clearFaults();

        assertThat(EventCodec.parseLaunchRequest(awaitLaunchRequest(submission.pk()).body()).run()).isEqualTo(1);
        intake.assertNoDeadLetters();
        claim("leaderboard-10", team, submission.pk(), 1);
    }

    private Optional<Instant> launchRequested(long team, long submissionPk) {
        return Optional.ofNullable(intake.record("leaderboard-10", team, submissionPk).get("launch_requested_time"))
                .map(value -> Instant.parse(value.s()));
    }

    /** What job-launcher does before it creates a run's Job. */
    private void claim(String table, long team, long submissionPk, int run) {
        stack.dynamoDb().updateItem(r -> r.tableName(table)
                .key(Map.of("team_id", AttributeValue.fromS(Long.toString(team)),
                        "submission_id", AttributeValue.fromS(Long.toString(submissionPk))))
                .updateExpression("SET launched_run = :run, submission_status = :pending")
                .expressionAttributeValues(Map.of(":run", AttributeValue.fromN(Integer.toString(run)),
                        ":pending", AttributeValue.fromS("PENDING"))));
    }

    private Message awaitLaunchRequest(long submissionPk) {
        var found = new ArrayList<Message>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            found.addAll(receive(launchRequestOf(submissionPk)));
            return !found.isEmpty();
        });
        assertThat(found).as("one launch request at a time").hasSize(1);
        return found.get(0);
    }

    private void drain(long submissionPk) {
        receive(launchRequestOf(submissionPk));
    }

    private static Predicate<Message> launchRequestOf(long submissionPk) {
        return message -> EventCodec.parseLaunchRequest(message.body()).submission().submissionPk() == submissionPk;
    }

    private List<Message> receive(Predicate<Message> wanted) {
        return receive(QueuesConfig.LAUNCH_REQUESTS, wanted);
    }

    /** Takes what is on the queue now; keeps (deletes) the wanted ones, drops the others (other tests' records). */
    private List<Message> receive(String queue, Predicate<Message> wanted) {
        String url = stack.queueUrl(queue);
        var messages = stack.sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1)
                .messageSystemAttributeNames(MessageSystemAttributeName.SENT_TIMESTAMP)).messages();
        messages.forEach(m -> stack.sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle())));
        return messages.stream().filter(wanted).toList();
    }
}
