package org.carla.leaderboard.launcher.service;

import static org.assertj.core.api.Assertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.JobFinished.Outcome;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.carla.leaderboard.launcher.job.JobNames;
import org.carla.leaderboard.launcher.job.SubmissionJob;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackResource;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;

/**
 * The launcher's story against the real local SQS (ElasticMQ) and the fabric8 Kubernetes server in CRUD mode: the test
 * plays ingest-service (sends launch requests), the Job controller (writes Job and pod status) and results-relay
 * (reads submission-events).
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = LocalStackResource.class, initArgs = @ResourceArg(name = "components", value = "sqs"))
class JobLifecycleTests {

    private static final Instant AGENT_FINISHED = Instant.parse("2026-11-21T12:00:00Z");

    private static final AtomicLong SUBMISSIONS = new AtomicLong(Instant.now().getEpochSecond() % 1_000_000 * 100);

    @InjectLocalStack
    RunningStack stack;

    @Inject
    KubernetesClient kubernetes;

    @Inject
    LauncherConfig config;

    @Inject
    JobWatcher watcher;

    @Test
    void aLaunchRequestCreatesExactlyTheSubmissionsJob() {
        LaunchRequest request = request("Team ../;rm -rf 🚗");

        send(request);

        Job job = awaitJob(request);
        Job expected = new SubmissionJob(config).build(request);
        assertThat(job.getSpec()).isEqualTo(expected.getSpec());
        assertThat(job.getMetadata().getLabels()).isEqualTo(expected.getMetadata().getLabels());
        assertThat(job.getMetadata().getAnnotations()).isEqualTo(expected.getMetadata().getAnnotations());
        List<SubmissionEvent> events = events().awaitEvents(pk(request), e -> !e.isEmpty());
        assertThat(events).singleElement().isInstanceOfSatisfying(JobStarted.class,
                started -> assertThat(started.jobName()).isEqualTo(job.getMetadata().getName()));
    }

    @Test
    void aRepeatedRequestCreatesNothingNew() {
        LaunchRequest request = request("twice");
        send(request);
        Job first = awaitJob(request);
        events().awaitEvents(pk(request), e -> e.size() == 1);

        send(request);

        events().awaitEvents(pk(request), e -> e.size() == 2);
        List<Job> jobs = jobsOf(request);
        assertThat(jobs).singleElement()
                .satisfies(job -> assertThat(job.getMetadata().getUid()).isEqualTo(first.getMetadata().getUid()));
    }

    @Test
    void aCompletedJobIsReportedWithItsContainersAndDeleted() {
        LaunchRequest request = request("complete");
        send(request);
        Job job = awaitJob(request);
        String name = job.getMetadata().getName();
        Instant started = Instant.now().minus(2, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS);
        Instant completed = started.plus(90, ChronoUnit.MINUTES);
        podWithStatuses(name);

        finish(name, "Complete", "CompletionsReached", started, completed);

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(finished.jobName()).isEqualTo(name);
        assertThat(finished.startedAt()).isEqualTo(started);
        assertThat(finished.finishedAt()).isEqualTo(completed);
        assertThat(finished.workerPairs()).isEqualTo(2);
        assertThat(finished.submission()).isEqualTo(request.submission());
        assertThat(finished.run()).isEqualTo(request.run());
        assertThat(finished.containers()).contains(new ContainerOutcome("agent-1", 2, 0, "Completed", AGENT_FINISHED),
                new ContainerOutcome("simulator-1", 1, 1, "Error"));
        awaitGone(name);
        assertOneJobFinished(request);
    }

    @ParameterizedTest
    @ValueSource(strings = { "BackoffLimitExceeded", "DeadlineExceeded" })
    void aFailedJobIsReportedWithKubernetesReasonAndDeleted(String reason) {
        LaunchRequest request = request("failed " + reason);
        send(request);
        String name = awaitJob(request).getMetadata().getName();

        finish(name, "Failed", reason, Instant.now().minusSeconds(600), null);

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(finished.reason()).isEqualTo(reason);
        awaitGone(name);
    }

    @Test
    void aJobDeletedBeforeFinishingIsReportedAsDeleted() {
        LaunchRequest request = request("deleted");
        send(request);
        String name = awaitJob(request).getMetadata().getName();

        kubernetes.batch().v1().jobs().inNamespace(config.namespace()).withName(name).delete();

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(Outcome.DELETED);
        awaitGone(name);
        assertOneJobFinished(request);
    }

    @Test
    void aJobThatFinishedWhileTheLauncherWasStoppedIsReportedAfterRestart() {
        LaunchRequest request = request("restart");
        watcher.stop();
        String name;
        try {
            Job job = new SubmissionJob(config).build(request);
            name = job.getMetadata().getName();
            kubernetes.batch().v1().jobs().inNamespace(config.namespace()).resource(job).create();
            finish(name, "Failed", "BackoffLimitExceeded", Instant.now().minusSeconds(60), null);
            assertThat(events().eventsNow(pk(request))).isEmpty();
        } finally {
            watcher.start();
        }

        JobFinished finished = awaitFinished(request);
        assertThat(finished.reason()).isEqualTo("BackoffLimitExceeded");
        awaitGone(name);
        assertOneJobFinished(request);
    }

    @Test
    void aJobReportedJustBeforeARestartIsOnlyDeletedAfterIt() {
        LaunchRequest request = request("reported before restart");
        watcher.stop();
        String name;
        try {
            Job job = new SubmissionJob(config).build(request);
            job.getMetadata().getFinalizers().clear();
            job.getMetadata().getAnnotations().put(JobMetadata.FINISHED_REPORTED, Instant.now().toString());
            name = job.getMetadata().getName();
            kubernetes.batch().v1().jobs().inNamespace(config.namespace()).resource(job).create();
            finish(name, "Complete", "CompletionsReached", Instant.now().minusSeconds(60), Instant.now());
        } finally {
            watcher.start();
        }

        awaitGone(name);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> events().eventsNow(pk(request)).isEmpty());
    }

    @Test
    void malformedRequestsGoToTheDeadLetterQueueAndTheNextOneIsLaunched() {
        String incomplete = "{\"version\":2,\"submission\":{\"submission_pk\":1}}";
        LaunchRequest hostile = request("hostile image");
        String hostileImage = EventCodec.write(hostile).replace("registry.example.org/team/agent:v1",
                "agent:v1;rm -rf /");
        for (String body : List.of(incomplete, hostileImage)) {
            stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.LAUNCH_REQUESTS)).messageBody(body));
        }
        LaunchRequest request = request("after the bad ones");
        send(request);

        awaitJob(request);
        String dlq = stack.deadLetterQueueUrl(QueuesConfig.LAUNCH_REQUESTS);
        var deadLettered = new java.util.concurrent.ConcurrentHashMap<String, String>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            stack.sqs().receiveMessage(r -> r.queueUrl(dlq).maxNumberOfMessages(10).messageAttributeNames("All"))
                    .messages().forEach(m -> deadLettered.put(m.body(),
                            m.messageAttributes().get("dead-letter-reason").stringValue()));
            return deadLettered.keySet().containsAll(List.of(incomplete, hostileImage));
        });
        assertThat(deadLettered.get(incomplete)).startsWith("malformed-missing-field");
        assertThat(deadLettered.get(hostileImage)).isEqualTo("malformed-invalid-value");
        assertThat(jobsOf(hostile)).isEmpty();
    }

    @Test
    void healthCoversTheConsumerKubernetesAndTheQueuesAndMetricsCountTheJobs() {
        LaunchRequest request = request("metrics");
        send(request);
        awaitJob(request);

        given().when().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'kubernetes-api' }.status", is("UP"))
                .body("checks.find { it.name == 'sqs' }.data.'launch-requests'", is(true))
                .body("checks.find { it.name == 'sqs' }.data.'submission-events'", is(true));
        given().when().get("/q/health/live").then().statusCode(200)
                .body("checks.find { it.name == 'queue-consumers' }.data.'launch-requests'",
                        startsWith("polling, last poll"));
        given().when().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'dependencies' }.data.kubernetes", is("up"))
                .body("checks.find { it.name == 'dependencies' }.data.sqs", is("up"));
        // The running gauge reads the informer's cache, which learns of the Job a moment after the API server.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                given().when().get("/q/metrics").then().statusCode(200).extract().asString())
                .containsPattern("leaderboard_launcher_jobs_created_total(\\{[^}]*\\})? [1-9]")
                .containsPattern("leaderboard_launcher_jobs_running(\\{[^}]*\\})? [1-9]")
                .contains("leaderboard_launcher_launch_delay_seconds_count")
                .contains("leaderboard_dependency_up{dependency=\"kubernetes\"} 1.0"));
    }

    private LaunchRequest request(String teamName) {
        long pk = SUBMISSIONS.incrementAndGet();
        var track = new TrackSpec("leaderboard-20", "SENSORS", "carla-leaderboard-20",
                "/workspace/leaderboard/data/routes_testing.xml", 4, 1, 2, "g5.12xlarge",
                "carla-leaderboard/carla:0.9.15", "carla-leaderboard/leaderboard-20:latest",
                "carla-leaderboard/pod-runtime:latest", "vulkan", 3600, 4, false, null, Map.of());
        return LaunchRequest.of(new SubmissionIdentity(pk, 2054, 2077, 5817, teamName, "leaderboard-20", "SENSORS"), 1,
                "registry.example.org/team/agent:v1", false, track, Instant.now().minusSeconds(5));
    }

    private void send(LaunchRequest request) {
        stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.LAUNCH_REQUESTS))
                .messageBody(EventCodec.write(request)));
    }

    private Job awaitJob(LaunchRequest request) {
        await().atMost(Duration.ofSeconds(20)).until(() -> !jobsOf(request).isEmpty());
        return jobsOf(request).get(0);
    }

    private List<Job> jobsOf(LaunchRequest request) {
        return kubernetes.batch().v1().jobs().inNamespace(config.namespace())
                .withLabel(JobMetadata.SUBMISSION_ID, JobNames.labelValue(request.submission().submissionId()))
                .list().getItems();
    }

    private JobFinished awaitFinished(LaunchRequest request) {
        return events().awaitEvents(pk(request), e -> e.stream().anyMatch(JobFinished.class::isInstance)).stream()
                .filter(JobFinished.class::isInstance).map(JobFinished.class::cast).findFirst().orElseThrow();
    }

    private void awaitGone(String name) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> kubernetes.batch().v1().jobs().inNamespace(config.namespace()).withName(name).get() == null);
    }

    /** What the Job controller writes when the Job ends. */
    private void finish(String name, String type, String reason, Instant started, Instant completed) {
        String at = (completed != null ? completed : Instant.now()).truncatedTo(ChronoUnit.SECONDS).toString();
        kubernetes.batch().v1().jobs().inNamespace(config.namespace()).withName(name).editStatus(job -> {
            if (job.getStatus() == null) {
                job.setStatus(new JobStatus());
            }
            if (job.getStatus().getConditions() == null) {
                job.getStatus().setConditions(new ArrayList<>());
            }
            job.getStatus().setStartTime(started.truncatedTo(ChronoUnit.SECONDS).toString());
            if (completed != null) {
                job.getStatus().setCompletionTime(at);
                job.getStatus().setSucceeded(1);
            } else {
                job.getStatus().setFailed(1);
            }
            job.getStatus().getConditions().add(new JobConditionBuilder().withType(type).withStatus("True")
                    .withReason(reason).withLastTransitionTime(at).withLastProbeTime(at).build());
            return job;
        });
    }

    /** The Job's pod as the kubelet reports it: a restarted agent that then succeeded, a crashed simulator. */
    private void podWithStatuses(String jobName) {
        var pod = new PodBuilder().withNewMetadata().withName(jobName + "-abcde").addToLabels("job-name", jobName)
                .endMetadata().withNewSpec().addNewContainer().withName("agent-1").withImage("agent").endContainer()
                .endSpec().build();
        kubernetes.pods().inNamespace(config.namespace()).resource(pod).create();
        kubernetes.pods().inNamespace(config.namespace()).withName(jobName + "-abcde").editStatus(p -> {
            p.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                    .addToContainerStatuses(new ContainerStatusBuilder().withName("agent-1").withRestartCount(2)
                            .withNewState().withNewTerminated().withExitCode(0).withReason("Completed")
                            .withFinishedAt(AGENT_FINISHED.toString()).endTerminated().endState().build())
                    .addToContainerStatuses(new ContainerStatusBuilder().withName("simulator-1").withRestartCount(1)
                            .withNewState().withNewRunning().endRunning().endState()
                            .withNewLastState().withNewTerminated().withExitCode(1).withReason("Error")
                            .endTerminated().endLastState().build())
                    .build());
            return p;
        });
    }

    /** The end is published once: still one job-finished a moment after the Job is gone. */
    private void assertOneJobFinished(LaunchRequest request) {
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> events().eventsNow(pk(request))
                .stream().filter(JobFinished.class::isInstance).count() == 1);
    }

    private SubmissionEventsQueue events() {
        return new SubmissionEventsQueue(stack);
    }

    private static long pk(LaunchRequest request) {
        return request.submission().submissionPk();
    }
}
