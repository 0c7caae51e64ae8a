package org.carla.leaderboard.launcher.service;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.pod.JobLabels;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.launcher.job.PodContainers;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackProfile;
import org.carla.leaderboard.messaging.QueuePublisher;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The packaged job-launcher (the jar, or the native executable under {@code -Pnative}) in its production
 * configuration, against ElasticMQ, DynamoDB Local and the Kubernetes API server with the local Job runner: a launch
 * request becomes the run's Job, whose pod waits for a GPU, runs when one is free (every role a shell that ends at
 * once), and whose end is reported on {@code submission-events} before the Job is removed; the reconcile (every
 * 2 s here, 30 s in production) ends a run cancelled while its pod waits.
 */
@QuarkusIntegrationTest
@TestProfile(JobLauncherIT.Stack.class)
class JobLauncherIT {

    private static final String IMAGE = "registry.example.org/team/agent:v1";
    private static final long PHASE = 2077;
    private static final AtomicLong SUBMISSIONS = new AtomicLong(Instant.now().getEpochSecond() % 1_000_000 * 100);

    /** One worker pair; no GPU node until the test adds one; every role a shell that ends at once ({@link ShellRoles}). */
    public static class Stack extends LocalStackProfile {
        public Stack() {
            super(Map.ofEntries(Map.entry("components", "sqs,dynamodb,kubernetes"),
                    Map.entry("evaluation.phases.2077.worker-pairs", "1"),
                    Map.entry("local-stack.kubernetes.gpu-capacity", "0"),
                    Map.entry("local-stack.images.every.image", ".*"),
                    Map.entry("local-stack.images.every.user", "1000:1000"),
                    Map.entry("local-stack.images.every.command./usr/local/bin/pod-runtime", "/bin/true"),
                    Map.entry("local-stack.images.every.command./opt/pod-runtime/pod-runtime",
                            ShellRoles.PAIR + ShellRoles.DONE_AND_HOLD + ShellRoles.END),
                    Map.entry("local-stack.images.pod-runtime.image", "carla-leaderboard/pod-runtime:.*"),
                    Map.entry("local-stack.images.pod-runtime.order", "10"),
                    Map.entry("local-stack.images.pod-runtime.user", "1000:1000"),
                    Map.entry("local-stack.images.pod-runtime.command./usr/local/bin/pod-runtime", "/bin/true"),
                    Map.entry("local-stack.images.pod-runtime.command./opt/pod-runtime/pod-runtime",
                            ShellRoles.LOGCOPY)));
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("launcher.reconcile.interval", "PT2S");
        }
    }

    @InjectLocalStack
    RunningStack stack;

    @Test
    void aLaunchRequestBecomesTheRunsJobWhichRunsOnAFreeGpuAndIsReportedWhenItEnds() {
        LaunchRequest request = recordedAndRequested("Team ../;rm -rf 🚗");

        Job job = awaitJob(request);
        String name = job.getMetadata().getName();
        assertThat(name).matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
                .endsWith("-" + request.submission().submissionPk() + "-r1");
        assertThat(job.getMetadata().getLabels()).containsEntry(JobLabels.RUN, "1")
                .containsEntry(JobLabels.MANAGED_BY, JobLabels.LAUNCHER);
        assertThat(PodContainers.specs(job.getSpec().getTemplate().getSpec())).extracting(c -> c.getName())
                .containsExactlyInAnyOrder("simulator-1", "agent-1", "logcopy");
        await("the pod waits for a GPU").atMost(Duration.ofSeconds(20))
                .until(() -> podOf(name).filter(pod -> "Pending".equals(pod.getStatus().getPhase())).isPresent());

        stack.jobRunner().gpuCapacity(1);

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(JobFinished.Outcome.SUCCEEDED);
        assertThat(finished.jobName()).isEqualTo(name);
        assertThat(finished.run()).isEqualTo(1);
        assertThat(finished.submission()).isEqualTo(request.submission());
        assertThat(finished.containers()).extracting(c -> c.name(), c -> c.lastExitCode())
                .contains(tuple("agent-1", 0));
        await("the Job is removed").atMost(Duration.ofSeconds(20)).until(() -> jobs(request).isEmpty());
    }

    /**
     * The reconcile, over the informer's Jobs: a run cancelled (the relay's mark in the record) while its pod waits
     * for a GPU has its Job deleted with the reason, its end reported and noted, and the Job released and removed.
     */
    @Test
    void theReconcileEndsARunCancelledWhileItsPodWaitsForAGpu() {
        stack.jobRunner().gpuCapacity(0);
        LaunchRequest request = recordedAndRequested("Team cancelled while pending");
        String name = awaitJob(request).getMetadata().getName();
        await("the pod waits for a GPU").atMost(Duration.ofSeconds(20))
                .until(() -> podOf(name).filter(pod -> "Pending".equals(pod.getStatus().getPhase())).isPresent());

        String table = stack.evaluation().leaderboards().get(request.submission().leaderboard()).submissionsTable();
        stack.dynamoDb().updateItem(r -> r.tableName(table).key(Map.of(
                SubmissionTable.TEAM_ID, text(Long.toString(request.submission().teamId())),
                SubmissionTable.SUBMISSION_ID, text(request.submission().submissionId())))
                .updateExpression("SET #cancel = :run").expressionAttributeNames(Map.of("#cancel",
                        SubmissionTable.CANCEL_REQUESTED_RUN))
                .expressionAttributeValues(Map.of(":run", AttributeValue.fromN("1"))));

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(JobFinished.Outcome.DELETED);
        assertThat(finished.reason()).isEqualTo("Cancelled");
        assertThat(finished.startedAt()).isNull();
        await("the Job is removed").atMost(Duration.ofSeconds(20)).until(() -> jobs(request).isEmpty());
        await("its end noted in the record").atMost(Duration.ofSeconds(20)).until(() -> stack.dynamoDb()
                .getItem(r -> r.tableName(table).consistentRead(true).key(Map.of(
                        SubmissionTable.TEAM_ID, text(Long.toString(request.submission().teamId())),
                        SubmissionTable.SUBMISSION_ID, text(request.submission().submissionId()))))
                .item().containsKey(SubmissionTable.JOB_ENDED_RUN));
    }

    @Test
    void aMalformedRequestIsDeadLetteredWithItsReason() {
        String body = "{\"version\":2,\"submission\":{\"submission_pk\":1}}";
        stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.LAUNCH_REQUESTS)).messageBody(body));

        String dlq = stack.deadLetterQueueUrl(QueuesConfig.LAUNCH_REQUESTS);
        List<Message> dead = await().atMost(Duration.ofSeconds(20)).until(() -> stack.sqs().receiveMessage(
                r -> r.queueUrl(dlq).waitTimeSeconds(1).messageAttributeNames("All")).messages(), m -> !m.isEmpty());
        assertThat(dead).singleElement().satisfies(message -> {
            assertThat(message.body()).isEqualTo(body);
            assertThat(message.messageAttributes().get("dead-letter-reason").stringValue())
                    .startsWith("malformed-missing-field");
        });
    }

    @Test
    void theProbesSeeTheConsumerPollingTheQueuesAndTheApiServer() {
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'queue-consumers' }.data.'launch-requests'", startsWith("polling"));
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'kubernetes-api' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'sqs' }.data.'submission-events'", equalTo(true));
    }

    /** ingest-service's part: the record of run 1, then the launch request, as the track's configuration makes it. */
    private LaunchRequest recordedAndRequested(String teamName) {
        long pk = SUBMISSIONS.incrementAndGet();
        TrackSpec track = new TrackCatalog(stack.evaluation()).forPhase(PHASE).orElseThrow();
        var identity = new SubmissionIdentity(pk, 1, PHASE, pk + 7, teamName, track.leaderboard(), track.track());
        var record = Map.of(SubmissionTable.TEAM_ID, text(Long.toString(identity.teamId())),
                SubmissionTable.SUBMISSION_ID, text(identity.submissionId()),
                SubmissionTable.TEAM_NAME, text(teamName),
                SubmissionTable.STATUS, text("SUBMITTED"),
                SubmissionTable.RUN, AttributeValue.fromN("1"),
                SubmissionTable.LEADERBOARD, text(track.leaderboard()),
                SubmissionTable.TRACK_NAME, text(track.track()),
                SubmissionTable.IMAGE_URI, text(IMAGE));
        String table = stack.evaluation().leaderboards().get(track.leaderboard()).submissionsTable();
        stack.dynamoDb().putItem(r -> r.tableName(table).item(record));
        LaunchRequest request = LaunchRequest.of(identity, 1, IMAGE, false, track, Instant.now());
        QueuePublisher.to(stack.sqs(), stack.queueUrl(QueuesConfig.LAUNCH_REQUESTS)).publish(request);
        return request;
    }

    private static AttributeValue text(String value) {
        return AttributeValue.fromS(value);
    }

    private Job awaitJob(LaunchRequest request) {
        return await("the run's Job").atMost(Duration.ofSeconds(20)).until(() -> jobs(request), j -> !j.isEmpty())
                .get(0);
    }

    private List<Job> jobs(LaunchRequest request) {
        return stack.kubernetes().batch().v1().jobs().inNamespace("submissions")
                .withLabel(JobLabels.SUBMISSION_ID, request.submission().submissionId()).list().getItems();
    }

    private Optional<Pod> podOf(String jobName) {
        return stack.kubernetes().pods().inNamespace("submissions").withLabel("job-name", jobName).list().getItems()
                .stream().filter(pod -> pod.getStatus() != null).findFirst();
    }

    private JobFinished awaitFinished(LaunchRequest request) {
        return new SubmissionEventsQueue(stack)
                .awaitEvents(request.submission().submissionPk(),
                        events -> events.stream().anyMatch(JobFinished.class::isInstance))
                .stream().filter(JobFinished.class::isInstance).map(JobFinished.class::cast).findFirst().orElseThrow();
    }
}
