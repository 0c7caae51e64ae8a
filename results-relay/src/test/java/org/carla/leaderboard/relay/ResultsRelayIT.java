package org.carla.leaderboard.relay;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.RESULTS;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;
import static org.carla.leaderboard.relay.ResultsRelayTests.isTrue;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackProfile;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The packaged results-relay (the jar, or the native executable under {@code -Pnative}) in its production
 * configuration but for the cancel check's interval (5 s, not 60 s: a partial update waits for its run's next list),
 * against ElasticMQ, DynamoDB Local, S3Proxy, the EvalAI stand-in and the API server (its Lease): a run's lifecycle events and
 * logcopy's reports become EvalAI's running, partial and final updates and the final record; a hostile report is
 * dead-lettered with its reason and the next one is relayed; a cancel on EvalAI is noticed and signalled to the pod;
 * Kubernetes' probes get their answers, and the Lease names its holder.
 */
@QuarkusIntegrationTest
@TestProfile(ResultsRelayIT.Stack.class)
class ResultsRelayIT {

    /**
     * The running and partial updates wait up to the cancel check's interval for their run's list, their guard; the
     * confirmation of the final status for the run's next turn.
     */
    private static final Duration PARTIAL_WAIT = PATIENCE.plusSeconds(6);

    public static class Stack extends LocalStackProfile {
        public Stack() {
            // kubernetes: the production relay is active only while it holds its Lease, on the stack's API server
            super(Map.of("components", "sqs,dynamodb,s3,evalai,kubernetes"));
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("relay.cancel-check.every", "5s");
        }
    }

    @InjectLocalStack
    RunningStack stack;

    @Test
    void aRunsEventsAndReportsBecomeEvalAiUpdatesAndTheFinalRecord() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS);

        given.send(given.jobStarted());
        await().atMost(PARTIAL_WAIT).until(() -> "running".equals(given.onEvalAi().status()));
        assertThat(given.recordStatus()).isEqualTo("RUNNING");
        given.report(given.progress(1, 2));
        await().atMost(PARTIAL_WAIT).until(() -> "partially_evaluated".equals(given.onEvalAi().status()));
        given.allDone().report(given.lastReport(Progress.Ending.FINISHED, List.of()));
        await().atMost(PATIENCE).until(() -> given.record().containsKey(SubmissionTable.LAST_ENDING));
        // The Job's end as a launcher from before job-finished's pods wrote it: still read.
        given.sendAsAnEarlierLauncher(given.succeeded());

        await().atMost(PARTIAL_WAIT).until(() -> isTrue(given.record().get(SubmissionTable.FINAL_SENT)));
        var onEvalAi = given.onEvalAi();
        assertThat(onEvalAi.status()).isEqualTo("finished");
        assertThat(onEvalAi.statusHistory()).containsSubsequence("running", "partially_evaluated", "finished");
        assertThat(EvalAiCalls.finalUpdates(stack.evalAi().calls(), given.pk())).hasSize(1);
        assertThat(onEvalAi.jobNames()).containsExactly(given.jobName());
        assertThat(onEvalAi.result()).contains("\"Driving score\": 41.25");
        assertThat(onEvalAi.stdout()).isEqualTo(given.stdout());
        var record = given.record();
        assertThat(record.get(SubmissionTable.STATUS).s()).isEqualTo("FINISHED");
        assertThat(record.get(SubmissionTable.FAILURE_REASON).s()).isEqualTo(SubmissionTable.NOT_YET);
        assertThat(record.get("driving_score").n()).isEqualTo("41.25");
        assertThat(record.get("route_completion").n()).isEqualTo("77.5");
    }

    @Test
    void aHostileReportIsDeadLetteredWithItsReasonAndTheNextOneIsRelayed() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS);
        given.send(given.jobStarted());
        await().atMost(PARTIAL_WAIT).until(() -> "running".equals(given.onEvalAi().status()));
        Progress report = given.progress(1, 2);
        String body = EventCodec.write(report).replace(report.resultsDigest(), "$(rm -rf /)");

        stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.PROGRESS_REPORTS)).messageBody(body));

        String dlq = stack.deadLetterQueueUrl(QueuesConfig.PROGRESS_REPORTS);
        List<Message> dead = await().atMost(PATIENCE).until(() -> stack.sqs().receiveMessage(
                r -> r.queueUrl(dlq).waitTimeSeconds(1).messageAttributeNames("All")).messages(), m -> !m.isEmpty());
        assertThat(dead).singleElement().satisfies(message -> {
            assertThat(message.body()).isEqualTo(body);
            assertThat(message.messageAttributes().get("dead-letter-reason").stringValue())
                    .isEqualTo("malformed-invalid-value");
            assertThat(message.messageAttributes().get("dead-letter-error").stringValue())
                    .contains("results_digest");
        });
        assertThat(given.onEvalAi().status()).isEqualTo("running");

        given.report(report);
        await().atMost(PARTIAL_WAIT).until(() -> "partially_evaluated".equals(given.onEvalAi().status()));
        // the record's progress is written right after EvalAI's update
        await().atMost(PATIENCE).until(() -> given.record().containsKey(SubmissionTable.ROUTES_DONE));
        assertThat(given.record().get(SubmissionTable.ROUTES_DONE).n()).isEqualTo("1");
    }

    /**
     * The active relay's scheduled cancel check lists the challenge's submissions on EvalAI, notices a participant's
     * cancel of a running run, records it and tells the pod (the cancel control object logcopy looks for).
     */
    @Test
    void aCancelOnEvalAiIsNoticedByTheCancelCheckAndSignalledToThePod() {
        var given = GivenSubmission.submitted(stack, SENSORS).results(RESULTS);
        given.send(given.jobStarted());
        await().atMost(PARTIAL_WAIT).until(() -> "running".equals(given.onEvalAi().status()));

        stack.evalAi().cancel(given.pk());

        await().atMost(PARTIAL_WAIT).until(given::cancelControl);
        assertThat(given.record().get(SubmissionTable.CANCEL_REQUESTED_RUN).n()).isEqualTo("1");
    }

    @Test
    void theProbesSeeBothConsumersPollingTheirQueuesAndTheTables() {
        // alone, the relay takes its Lease at its first try
        await().atMost(PATIENCE).untilAsserted(() -> given().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'relay-lease' }.data.role", equalTo("active")));
        var lease = stack.kubernetes().leases().inNamespace("leaderboard").withName("results-relay").get();
        assertThat(lease.getSpec().getHolderIdentity()).as("the Lease on the API server names its holder").isNotBlank();
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'queue-consumers' }.data.'submission-events'", startsWith("polling"))
                .body("checks.find { it.name == 'queue-consumers' }.data.'progress-reports'", startsWith("polling"));
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'sqs' }.data.'progress-reports'", equalTo(true))
                .body("checks.find { it.name == 'dynamodb' }.data.'leaderboard-20'", equalTo(true))
                .body("checks.find { it.name == 'dynamodb' }.data.'leaderboard-qualifiers'", equalTo(true));
        given().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'dependencies' }.data.sqs", equalTo("up"))
                .body("checks.find { it.name == 'dependencies' }.data.dynamodb", equalTo("up"));
    }
}
