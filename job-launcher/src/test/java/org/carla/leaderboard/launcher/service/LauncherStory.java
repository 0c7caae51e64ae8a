package org.carla.leaderboard.launcher.service;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.inject.Inject;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.carla.leaderboard.launcher.job.JobNames;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.messaging.QueuesConfig;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What the launcher's stories share. The test plays everyone around the launcher against the real local servers:
 * ingest-service (writes the submission's record in DynamoDB Local, sends launch requests on ElasticMQ), results-relay
 * (reads submission-events, records a cancel), and, on the stack's API server as its administrator, the Job controller
 * and the kubelet (writes Job and pod status). The launcher talks to that API server as its ServiceAccount, so what
 * deploy/ does not grant it fails here.
 */
abstract class LauncherStory {

    static final String TABLE = "leaderboard-20";
    private static final AtomicLong SUBMISSIONS = new AtomicLong(Instant.now().getEpochSecond() % 1_000_000 * 100);

    @InjectLocalStack
    RunningStack stack;

    @Inject
    LauncherConfig config;

    @Inject
    JobWatcher watcher;

    // ingest-service

    /** A launch request of run {@code run} of a new submission, on a track with a deadline of {@code deadline}. */
    LaunchRequest request(String teamName, int run, long deadlineSeconds) {
        long pk = SUBMISSIONS.incrementAndGet();
        var track = new TrackSpec("leaderboard-20", "SENSORS", "carla-leaderboard-20", LeaderboardVersion.V2_0,
                "/workspace/leaderboard/data/routes_testing.xml", null, 4, 1, 2, "g5.12xlarge",
                "carla-leaderboard/carla:0.9.15", "carla-leaderboard/leaderboard-20:latest",
                "carla-leaderboard/pod-runtime:latest", "vulkan", deadlineSeconds, 4, false, null, Map.of(), null, null, 1);
        return LaunchRequest.of(new SubmissionIdentity(pk, 2054, 2077, 5817, teamName, "leaderboard-20", "SENSORS"),
                run, "registry.example.org/team/agent:v1", run > 1, track, Instant.now().minusSeconds(5));
    }

    LaunchRequest request(String teamName) {
        return request(teamName, 1, 3600);
    }

    /** The same submission's next run, as ingest-service asks for it after a resume. */
    static LaunchRequest nextRun(LaunchRequest request) {
        return LaunchRequest.of(request.submission(), request.run() + 1, request.imageUri(), true,
                request.trackSpec(), Instant.now());
    }

    /** The record as ingest-service leaves it when it publishes the request: its run, SUBMITTED. */
    void recorded(LaunchRequest request) {
        record(request.submission(), request.run(), SubmissionStatus.SUBMITTED, Map.of());
    }

    void record(SubmissionIdentity submission, int run, SubmissionStatus status, Map<String, Integer> numbers) {
        var item = new HashMap<String, AttributeValue>();
        SubmissionTable.key(submission.teamId(), submission.submissionId())
                .forEach((name, value) -> item.put(name, AttributeValue.fromS(value)));
        item.put(SubmissionTable.RUN, AttributeValue.fromN(Integer.toString(run)));
        item.put(SubmissionTable.STATUS, AttributeValue.fromS(status.name()));
        item.put(SubmissionTable.TEAM_NAME, AttributeValue.fromS(submission.teamName()));
        item.put(SubmissionTable.START_TIME, AttributeValue.fromS(SubmissionTable.NOT_YET));
        numbers.forEach((name, value) -> item.put(name, AttributeValue.fromN(Integer.toString(value))));
        stack.dynamoDb().putItem(r -> r.tableName(TABLE).item(item));
    }

    /** What results-relay writes when it sees the run cancelled on EvalAI. */
    void cancelRequested(LaunchRequest request) {
        setNumber(request.submission(), SubmissionTable.CANCEL_REQUESTED_RUN, request.run());
    }

    void setNumber(SubmissionIdentity submission, String attribute, int value) {
        stack.dynamoDb().updateItem(r -> r.tableName(TABLE).key(key(submission))
                .updateExpression("SET #a = :v").expressionAttributeNames(Map.of("#a", attribute))
                .expressionAttributeValues(Map.of(":v", AttributeValue.fromN(Integer.toString(value)))));
    }

    void setStatus(SubmissionIdentity submission, SubmissionStatus status) {
        stack.dynamoDb().updateItem(r -> r.tableName(TABLE).key(key(submission))
                .updateExpression("SET #s = :v").expressionAttributeNames(Map.of("#s", SubmissionTable.STATUS))
                .expressionAttributeValues(Map.of(":v", AttributeValue.fromS(status.name()))));
    }

    Map<String, AttributeValue> recordOf(SubmissionIdentity submission) {
        return stack.dynamoDb().getItem(r -> r.tableName(TABLE).key(key(submission)).consistentRead(true)).item();
    }

    private static Map<String, AttributeValue> key(SubmissionIdentity submission) {
        var key = new HashMap<String, AttributeValue>();
        SubmissionTable.key(submission.teamId(), submission.submissionId())
                .forEach((name, value) -> key.put(name, AttributeValue.fromS(value)));
        return key;
    }

    /** Recorded and sent as ingest-service does; returns the name of the Job the launcher made. */
    String launched(LaunchRequest request) {
        recorded(request);
        send(request);
        return awaitJob(request).getMetadata().getName();
    }

    void send(LaunchRequest request) {
        stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.LAUNCH_REQUESTS))
                .messageBody(EventCodec.write(request)));
    }

    // The cluster

    /** The cluster as its administrator, the Job controller and the kubelet see it (the launcher has its own identity). */
    KubernetesClient cluster() {
        return stack.kubernetes();
    }

    Job awaitJob(LaunchRequest request) {
        await().atMost(Duration.ofSeconds(30)).until(() -> !jobsOf(request).isEmpty());
        return jobsOf(request).get(0);
    }

    List<Job> jobsOf(LaunchRequest request) {
        return cluster().batch().v1().jobs().inNamespace(config.namespace())
                .withLabel(JobMetadata.SUBMISSION_ID, JobNames.labelValue(request.submission().submissionId()))
                .withLabel(JobMetadata.RUN, Integer.toString(request.run()))
                .list().getItems();
    }

    Job job(String name) {
        return cluster().batch().v1().jobs().inNamespace(config.namespace()).withName(name).get();
    }

    void awaitGone(String name) {
        await().atMost(Duration.ofSeconds(30)).until(() -> job(name) == null);
    }

    /**
     * What the Job controller writes when it starts the Job (creates its pod). The test's status writes are patches
     * without a resourceVersion, so the launcher's own patches of the Job meanwhile never make them conflict.
     */
    void jobStartedAt(String name, Instant started) {
        patchStatus(name, Map.of("startTime", started.truncatedTo(ChronoUnit.SECONDS).toString(), "active", 1));
    }

    /** What the Job controller writes when the Job ends (failed: now). */
    void finish(String name, String type, String reason, Instant started, Instant completed) {
        finish(name, type, reason, started, completed, completed != null ? completed : Instant.now());
    }

    void finish(String name, String type, String reason, Instant started, Instant completed, Instant endedAt) {
        String at = endedAt.truncatedTo(ChronoUnit.SECONDS).toString();
        Job current = job(name);
        var conditions = new ArrayList<>(current.getStatus() == null || current.getStatus().getConditions() == null
                ? List.of() : current.getStatus().getConditions());
        conditions.add(new JobConditionBuilder().withType(type).withStatus("True").withReason(reason)
                .withLastTransitionTime(at).withLastProbeTime(at).build());
        var status = new HashMap<String, Object>();
        status.put("startTime", started.truncatedTo(ChronoUnit.SECONDS).toString());
        status.put("conditions", conditions);
        if (completed != null) {
            status.put("completionTime", at);
            status.put("succeeded", 1);
        } else {
            status.put("failed", 1);
        }
        patchStatus(name, status);
    }

    /** What the Job controller writes of an Indexed Job once the indexes {@code completed} succeeded. */
    void indexesCompleted(String name, String completed) {
        patchStatus(name, Map.of("startTime", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), "active", 1,
                "succeeded", completed.split(",").length, "completedIndexes", completed));
    }

    private void patchStatus(String name, Map<String, Object> status) {
        cluster().batch().v1().jobs().inNamespace(config.namespace()).withName(name).subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(Map.of("status", status)));
    }

    /** The Job's pod as the Job controller creates it: Pending, waiting for a node. */
    String podPending(String jobName) {
        String podName = jobName + "-" + Long.toString(System.nanoTime() % 100_000, 36);
        var pod = new PodBuilder().withNewMetadata().withName(podName)
                .addToLabels(JobMetadata.POD_JOB_NAME, jobName)
                .addToLabels(JobMetadata.WORKLOAD, JobMetadata.WORKLOAD_SUBMISSION).endMetadata()
                .withNewSpec().addNewContainer().withName("agent-1").withImage("agent").endContainer().endSpec()
                .build();
        cluster().pods().inNamespace(config.namespace()).resource(pod).create();
        podStatus(podName, new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Pending")
                .addNewCondition().withType("PodScheduled").withStatus("False").withReason("Unschedulable")
                .endCondition().build());
        return podName;
    }

    /** The image the kubelet ran for {@link #podPending}'s container, by digest. */
    static final String AGENT_IMAGE_ID = "docker.io/library/agent@sha256:" + "5e".repeat(32);

    /** What the kubelet reports once the pod reached a node and its containers run. */
    void podRunning(String podName, Instant startedAt) {
        podRunning(podName, startedAt, AGENT_IMAGE_ID);
    }

    /** The same, the kubelet having pulled the image {@code imageId} for the agent's reference. */
    void podRunning(String podName, Instant startedAt, String imageId) {
        String at = startedAt.truncatedTo(ChronoUnit.SECONDS).toString();
        podStatus(podName, new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Running")
                .withStartTime(at)
                .addNewContainerStatus().withName("agent-1").withImage("agent").withImageID(imageId)
                .withRestartCount(0).withNewState().withNewRunning()
                .withStartedAt(at).endRunning().endState().endContainerStatus().build());
    }

    /** The kubelet's status of the pod, whole (a JSON patch: no resourceVersion to conflict on). */
    void podStatus(String podName, PodStatus status) {
        cluster().pods().inNamespace(config.namespace()).withName(podName).subresource("status")
                .patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"add\",\"path\":\"/status\",\"value\":"
                        + Serialization.asJson(status) + "}]");
    }

    // results-relay

    SubmissionEventsQueue events() {
        return new SubmissionEventsQueue(stack);
    }

    JobFinished awaitFinished(LaunchRequest request) {
        return events().awaitEvents(pk(request), e -> e.stream().anyMatch(JobFinished.class::isInstance)).stream()
                .filter(JobFinished.class::isInstance).map(JobFinished.class::cast).findFirst().orElseThrow();
    }

    JobStarted awaitStarted(LaunchRequest request) {
        return events().awaitEvents(pk(request), e -> e.stream().anyMatch(JobStarted.class::isInstance)).stream()
                .filter(JobStarted.class::isInstance).map(JobStarted.class::cast).findFirst().orElseThrow();
    }

    /** The events of this submission of one kind, counted now and a moment later (nothing more arrives). */
    void assertStaysCount(LaunchRequest request, Class<? extends SubmissionEvent> kind, long count) {
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> events()
                .eventsNow(pk(request)).stream().filter(kind::isInstance).count() == count);
    }

    /** Messages now in the launch-requests dead-letter queue, by body (received, left in place). */
    Map<String, String> deadLettered() {
        var found = new ConcurrentHashMap<String, String>();
        String dlq = stack.deadLetterQueueUrl(QueuesConfig.LAUNCH_REQUESTS);
        for (int receive = 0; receive < 5; receive++) {
            stack.sqs().receiveMessage(r -> r.queueUrl(dlq).maxNumberOfMessages(10).visibilityTimeout(0)
                    .messageAttributeNames("All")).messages().forEach(m -> found.put(m.body(),
                            m.messageAttributes().get("dead-letter-reason").stringValue()));
        }
        return found;
    }

    static long pk(LaunchRequest request) {
        return request.submission().submissionPk();
    }
}
