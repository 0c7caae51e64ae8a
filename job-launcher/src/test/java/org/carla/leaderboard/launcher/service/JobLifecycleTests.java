package org.carla.leaderboard.launcher.service;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.Collectors;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.JobFinished.Outcome;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.carla.leaderboard.launcher.job.SubmissionJob;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.quarkus.test.junit.QuarkusTest;

/** A run's Job from its creation to its report and removal, restarts of the launcher included. */
@QuarkusTest
@LauncherStack
class JobLifecycleTests extends LauncherStory {

    private static final Instant AGENT_FINISHED = Instant.parse("2026-11-21T12:00:00Z");

    @Test
    void aLaunchRequestCreatesExactlyTheRunsJobAndNoStartYet() {
        LaunchRequest request = request("Team ../;rm -rf 🚗");
        recorded(request);

        send(request);

        Job job = awaitJob(request);
        Job expected = new SubmissionJob(config).build(request);
        assertThat(job.getSpec()).isEqualTo(expected.getSpec());
        assertThat(job.getMetadata().getLabels()).isEqualTo(expected.getMetadata().getLabels());
        assertThat(job.getMetadata().getAnnotations()).isEqualTo(expected.getMetadata().getAnnotations());
        // A Job made is not a run started: job-started waits for the pod (RunStartTests).
        assertStaysCount(request, JobStarted.class, 0);
    }

    @Test
    void aRepeatedRequestCreatesNothingNew() {
        LaunchRequest request = request("twice");
        recorded(request);
        send(request);
        Job first = awaitJob(request);
        double repeatedBefore = metric("leaderboard_launcher_requests_repeated_total");

        send(request);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> metric("leaderboard_launcher_requests_repeated_total") > repeatedBefore);
        assertThat(jobsOf(request)).singleElement()
                .satisfies(job -> assertThat(job.getMetadata().getUid()).isEqualTo(first.getMetadata().getUid()));
    }

    @Test
    void aCompletedJobIsReportedWithItsContainersAndDeleted() {
        LaunchRequest request = request("complete");
        recorded(request);
        send(request);
        Job job = awaitJob(request);
        String name = job.getMetadata().getName();
        Instant started = Instant.now().minus(2, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS);
        Instant completed = started.plus(90, ChronoUnit.MINUTES);
        podWithStatuses(name, started.plusSeconds(30));

        finish(name, "Complete", "CompletionsReached", started, completed);

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(finished.jobName()).isEqualTo(name);
        assertThat(finished.startedAt()).as("the pod's start, not the Job's").isEqualTo(started.plusSeconds(30));
        assertThat(finished.finishedAt()).isEqualTo(completed);
        assertThat(finished.workerPairs()).isEqualTo(2);
        assertThat(finished.submission()).isEqualTo(request.submission());
        assertThat(finished.run()).isEqualTo(request.run());
        assertThat(finished.containers()).contains(new ContainerOutcome("agent-1", 2, 0, "Completed", AGENT_FINISHED),
                new ContainerOutcome("simulator-1", 1, 1, "Error"));
        awaitGone(name);
        assertStaysCount(request, JobFinished.class, 1);
        // It ran and ended before its start was announced: the start is announced with the end, once.
        assertThat(events().eventsNow(pk(request))).hasSize(2).filteredOn(JobStarted.class::isInstance)
                .singleElement().satisfies(e -> assertThat(((JobStarted) e).podStartedAt())
                        .isEqualTo(started.plusSeconds(30)));
    }

    /**
     * A run of two pods on a cluster short of GPU nodes: index 0 ran alone, claimed every route and ended; index 1
     * still waits for a node and would find nothing to claim. The Job controller would keep the Job until the deadline.
     */
    @Test
    void aRunOfTwoPodsWhoseLedgerSettledBeforeItsSecondPodRanEndsWithoutWaitingForIt() {
        LaunchRequest base = request("two pods, one node");
        var one = base.trackSpec();
        var track = new org.carla.leaderboard.domain.track.TrackSpec(one.leaderboard(), one.track(), one.bucket(),
                one.leaderboardVersion(), one.routesFile(), one.scenariosFile(), one.routes(), one.repetitions(), 1,
                "g5.xlarge", one.simulatorImage(), one.leaderboardImage(), one.podRuntimeImage(), one.renderer(),
                one.deadlineSeconds(), one.allowedResumes(), false, null, java.util.Map.of(), "dynamic", "route-ledger",
                2);
        LaunchRequest request = LaunchRequest.of(base.submission(), 1, base.imageUri(), false, track,
                base.requestedAt());
        String name = launched(request);
        Instant started = Instant.now().minusSeconds(600).truncatedTo(ChronoUnit.SECONDS);
        String first = indexedPod(name, 0);
        String second = indexedPod(name, 1);
        podRunning(first, started);
        podStatus(first, new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Succeeded")
                .withStartTime(started.toString()).addNewContainerStatus().withName("agent-1").withImage("agent")
                .withRestartCount(0).withNewState().withNewTerminated().withExitCode(0).withReason("Completed")
                .withStartedAt(started.toString()).withFinishedAt(started.plusSeconds(500).toString())
                .endTerminated().endState().endContainerStatus().build());
        indexesCompleted(name, "0");

        JobFinished finished = awaitFinished(request);

        assertThat(finished.outcome()).isEqualTo(Outcome.DELETED);
        assertThat(finished.reason()).isEqualTo(JobFinished.ROUTES_DONE_BEFORE_PODS_RAN);
        assertThat(finished.indexesThatNeverRan(2)).containsExactly(1);
        assertThat(finished.pods()).extracting(JobFinished.PodSpan::name).containsExactlyInAnyOrder(first, second);
        awaitGone(name);
    }

    /** A pod of completion index {@code index} of the Indexed Job, as the Job controller creates it: Pending. */
    private String indexedPod(String jobName, int index) {
        String podName = jobName + "-" + index + "-" + Long.toString(System.nanoTime() % 100_000, 36);
        var pod = new PodBuilder().withNewMetadata().withName(podName).addToLabels(JobMetadata.POD_JOB_NAME, jobName)
                .addToLabels(JobMetadata.WORKLOAD, JobMetadata.WORKLOAD_SUBMISSION)
                .addToLabels(org.carla.leaderboard.domain.pod.JobLabels.COMPLETION_INDEX, Integer.toString(index))
                .addToAnnotations(org.carla.leaderboard.domain.pod.JobLabels.COMPLETION_INDEX, Integer.toString(index))
                .endMetadata().withNewSpec().addNewContainer().withName("agent-1").withImage("agent").endContainer()
                .endSpec().build();
        cluster().pods().inNamespace(config.namespace()).resource(pod).create();
        return podName;
    }

    @ParameterizedTest
    @ValueSource(strings = { "BackoffLimitExceeded", "DeadlineExceeded" })
    void aFailedJobIsReportedWithKubernetesReasonAndDeleted(String reason) {
        LaunchRequest request = request("failed " + reason);
        String name = launched(request);

        finish(name, "Failed", reason, Instant.now().minusSeconds(600), null);

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(finished.reason()).isEqualTo(reason);
        assertThat(finished.startedAt()).as("its pod never ran").isNull();
        awaitGone(name);
    }

    @Test
    void aJobDeletedBeforeFinishingIsReportedAsDeleted() {
        LaunchRequest request = request("deleted");
        String name = launched(request);

        cluster().batch().v1().jobs().inNamespace(config.namespace()).withName(name).delete();

        JobFinished finished = awaitFinished(request);
        assertThat(finished.outcome()).isEqualTo(Outcome.DELETED);
        assertThat(finished.reason()).isEqualTo("Deleted");
        awaitGone(name);
        assertStaysCount(request, JobFinished.class, 1);
    }

    @Test
    void aJobThatFinishedWhileTheLauncherWasStoppedIsReportedAfterRestart() {
        LaunchRequest request = request("restart");
        watcher.stop();
        String name;
        try {
            Job job = new SubmissionJob(config).build(request);
            name = job.getMetadata().getName();
            cluster().batch().v1().jobs().inNamespace(config.namespace()).resource(job).create();
            finish(name, "Failed", "BackoffLimitExceeded", Instant.now().minusSeconds(60), null);
            assertThat(events().eventsNow(pk(request))).isEmpty();
        } finally {
            watcher.start();
        }

        JobFinished finished = awaitFinished(request);
        assertThat(finished.reason()).isEqualTo("BackoffLimitExceeded");
        awaitGone(name);
        assertStaysCount(request, JobFinished.class, 1);
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
            cluster().batch().v1().jobs().inNamespace(config.namespace()).resource(job).create();
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
        recorded(hostile);
        String hostileImage = EventCodec.write(hostile).replace("registry.example.org/team/agent:v1",
                "agent:v1;rm -rf /");
        for (String body : List.of(incomplete, hostileImage)) {
            stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.LAUNCH_REQUESTS)).messageBody(body));
        }
        LaunchRequest request = request("after the bad ones");
        recorded(request);
        send(request);

        awaitJob(request);
        var deadLettered = new java.util.concurrent.ConcurrentHashMap<String, String>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            deadLettered.putAll(deadLettered());
            return deadLettered.keySet().containsAll(List.of(incomplete, hostileImage));
        });
        assertThat(deadLettered.get(incomplete)).startsWith("malformed-missing-field");
        assertThat(deadLettered.get(hostileImage)).isEqualTo("malformed-invalid-value");
        assertThat(jobsOf(hostile)).isEmpty();
    }

    @Test
    void healthCoversTheConsumerKubernetesAndTheQueuesAndMetricsCountTheJobs() {
        LaunchRequest request = request("metrics");
        recorded(request);
        send(request);
        String jobName = awaitJob(request).getMetadata().getName();

        given().when().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'kubernetes-api' }.status", is("UP"))
                .body("checks.find { it.name == 'sqs' }.data.'launch-requests'", is(true))
                .body("checks.find { it.name == 'sqs' }.data.'submission-events'", is(true))
                .body("checks.find { it.name == 'dynamodb' }.data.'leaderboard-20'", is("answers"));
        given().when().get("/q/health/live").then().statusCode(200)
                .body("checks.find { it.name == 'queue-consumers' }.data.'launch-requests'",
                        startsWith("polling, last poll"));
        given().when().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'dependencies' }.data.kubernetes", is("up"))
                .body("checks.find { it.name == 'dependencies' }.data.sqs", is("up"))
                .body("checks.find { it.name == 'dependencies' }.data.dynamodb", is("up"));
        // The running gauge reads the informer's cache, which learns of the Job a moment after the API server (or,
        // after its watch broke, once it watches again): what the cache holds is said if it never learns of it.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(watcher.jobs())
                .as(() -> "the launcher's cache of Jobs (watching: " + watcher.watching() + ", the Job in the API: "
                        + job(jobName) + ")")
                .anyMatch(job -> job.getMetadata().getName().equals(jobName) && !JobEnd.ending(job)));
        // Only the service's own lines: a failure then shows them all rather than a log's cut of the JVM's.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                given().when().get("/q/metrics").then().statusCode(200).extract().asString().lines()
                        .filter(line -> line.startsWith("leaderboard_")).collect(Collectors.joining("\n")))
                .containsPattern("leaderboard_launcher_jobs_created_total(\\{[^}]*\\})? [1-9]")
                .containsPattern("leaderboard_launcher_jobs_running(\\{[^}]*\\})? [1-9]")
                .contains("leaderboard_launcher_launch_delay_seconds_count")
                .contains("leaderboard_dependency_up{dependency=\"kubernetes\"} 1.0")
                .contains("leaderboard_stuck_submissions{rule=\"unreported-job\"}"));
    }

    /** The Job's pod as the kubelet reports it: a restarted agent that then succeeded, a crashed simulator. */
    private void podWithStatuses(String jobName, Instant podStarted) {
        var pod = new PodBuilder().withNewMetadata().withName(jobName + "-abcde")
                .addToLabels(JobMetadata.POD_JOB_NAME, jobName)
                .endMetadata().withNewSpec().addNewContainer().withName("agent-1").withImage("agent").endContainer()
                .endSpec().build();
        cluster().pods().inNamespace(config.namespace()).resource(pod).create();
        podStatus(jobName + "-abcde", new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Running")
                .withStartTime(podStarted.toString())
                .addToContainerStatuses(new ContainerStatusBuilder().withName("agent-1").withRestartCount(2)
                        .withNewState().withNewTerminated().withExitCode(0).withReason("Completed")
                        .withFinishedAt(AGENT_FINISHED.toString()).endTerminated().endState().build())
                .addToContainerStatuses(new ContainerStatusBuilder().withName("simulator-1").withRestartCount(1)
                        .withNewState().withNewRunning().endRunning().endState()
                        .withNewLastState().withNewTerminated().withExitCode(1).withReason("Error")
                        .endTerminated().endLastState().build())
                .build());
    }

    /** The sum of the samples whose line starts with {@code prefix} (a name, or a name and its first labels). */
    static double metric(String prefix) {
        String metrics = given().when().get("/q/metrics").then().statusCode(200).extract().asString();
        return metrics.lines().filter(line -> line.startsWith(prefix) && line.length() > prefix.length()
                && " {,}".indexOf(line.charAt(prefix.length())) >= 0)
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }
}
