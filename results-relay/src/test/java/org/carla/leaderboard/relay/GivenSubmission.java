package org.carla.leaderboard.relay;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.evalai.SubmissionView;
import org.carla.leaderboard.messaging.QueuePublisher;
import org.carla.leaderboard.messaging.QueuesConfig;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The given-steps of a relay scenario: a submission on the EvalAI stand-in, its record as ingest-service wrote it (run
 * 1, then one more per resume), the files logcopy would have uploaded to the leaderboard's bucket, the lifecycle events
 * the launcher and ingest send on {@code submission-events} and the reports logcopy sends on {@code progress-reports}.
 */
final class GivenSubmission {

    private static final AtomicLong TEAMS = new AtomicLong(System.nanoTime() % 1_000_000 * 100);

    final RunningStack stack;
    final SubmissionIdentity identity;
    final String bucket;
    final String table;
    final int workerPairs;
    /** The run the events are of: the record's current run unless a test says otherwise. */
    int run = 1;
    private String resultsText = EvalAiFiles.texts(null).get(EvalAiFiles.RESULTS);
    /** The folder the results and status files placed next go to: the pod's in a run of several. */
    private String podDir = "";

    private GivenSubmission(RunningStack stack, SubmissionIdentity identity, int workerPairs) {
        this.stack = stack;
        this.identity = identity;
        var leaderboard = stack.evaluation().leaderboards().get(identity.leaderboard());
        this.bucket = leaderboard.bucket();
        this.table = leaderboard.submissionsTable();
        this.workerPairs = workerPairs;
    }

    /** A participant submits to the phase; ingest-service recorded it as SUBMITTED, run 1. */
    static GivenSubmission submitted(RunningStack stack, long phasePk) {
        return submitted(stack, phasePk, null);
    }

    /** A participant submitted to the phase at {@code at} (null: now); ingest-service recorded it, run 1. */
    static GivenSubmission submitted(RunningStack stack, long phasePk, Instant at) {
        long teamId = TEAMS.incrementAndGet();
        var phase = stack.evaluation().phases().get(Long.toString(phasePk));
        SubmissionView view = stack.evalAi().createSubmission(
                NewSubmission.of(teamId, "Team " + teamId, phasePk, "registry.example/team/agent:1").submittedAt(at));
        var identity = new SubmissionIdentity(view.pk(), view.challengePk(), phasePk, teamId, "Team " + teamId,
                phase.leaderboard(), phase.track());
        var given = new GivenSubmission(stack, identity, 2);
        var item = new java.util.HashMap<String, AttributeValue>();
        item.put(SubmissionTable.TEAM_ID, AttributeValue.fromS(Long.toString(teamId)));
        item.put(SubmissionTable.SUBMISSION_ID, AttributeValue.fromS(identity.submissionId()));
        item.put(SubmissionTable.TEAM_NAME, AttributeValue.fromS(identity.teamName()));
        item.put(SubmissionTable.STATUS, AttributeValue.fromS("SUBMITTED"));
        item.put(SubmissionTable.TRACK_ID, AttributeValue.fromS(Long.toString(phasePk)));
        item.put(SubmissionTable.TRACK_NAME, AttributeValue.fromS(identity.track()));
        item.put(SubmissionTable.CHALLENGE_ID, AttributeValue.fromS(Long.toString(identity.challengePk())));
        item.put(SubmissionTable.LEADERBOARD, AttributeValue.fromS(identity.leaderboard()));
        item.put(SubmissionTable.EXPECTED_ROUTES, AttributeValue.fromN("2"));
        item.put(SubmissionTable.WORKERS, AttributeValue.fromN(Integer.toString(given.workerPairs)));
        item.put(SubmissionTable.INSTANCE_TYPE, AttributeValue.fromS("g5.12xlarge"));
        item.put(SubmissionTable.SUBMITTED_TIME, AttributeValue.fromS(view.submittedAt().toString()));
        item.put(SubmissionTable.START_TIME, AttributeValue.fromS(SubmissionTable.NOT_YET));
        item.put(SubmissionTable.END_TIME, AttributeValue.fromS(SubmissionTable.NOT_YET));
        item.put(SubmissionTable.RUN, AttributeValue.fromN("1"));
        stack.dynamoDb().putItem(r -> r.tableName(given.table).item(item));
        return given;
    }

    /** The host resumed the submission on EvalAI and ingest-service opened the next run, as it does. */
    GivenSubmission resumed() {
        run++;
        stack.dynamoDb().updateItem(r -> r.tableName(table).key(key())
                .updateExpression("SET #run = :run, #status = :submitted, #sent = :false, #start = :none, #end = :none")
                .expressionAttributeNames(Map.of("#run", SubmissionTable.RUN, "#status", SubmissionTable.STATUS,
                        "#sent", SubmissionTable.FINAL_SENT, "#start", SubmissionTable.START_TIME,
                        "#end", SubmissionTable.END_TIME))
                .expressionAttributeValues(Map.of(":run", AttributeValue.fromN(Integer.toString(run)),
                        ":submitted", AttributeValue.fromS("SUBMITTED"), ":false", AttributeValue.fromBool(false),
                        ":none", AttributeValue.fromS(SubmissionTable.NOT_YET))));
        return this;
    }

    /** job-launcher created the run's Job; its pod waits for capacity (the record as the launcher writes it). */
    GivenSubmission pending() {
        stack.dynamoDb().updateItem(r -> r.tableName(table).key(key())
                .updateExpression("SET #status = :pending, #launched = :run, #job = :job")
                .expressionAttributeNames(Map.of("#status", SubmissionTable.STATUS,
                        "#launched", SubmissionTable.LAUNCHED_RUN, "#job", SubmissionTable.JOB_NAME))
                .expressionAttributeValues(Map.of(":pending", AttributeValue.fromS("PENDING"),
                        ":run", AttributeValue.fromN(Integer.toString(run)), ":job", AttributeValue.fromS(jobName()))));
        return this;
    }

    /**
     * The run's pod runs and another relay recorded it RUNNING (as {@code job-started} does) but stopped before telling
     * EvalAI: no event reaches this relay.
     */
    GivenSubmission runningAsRecordedElsewhere() {
        stack.dynamoDb().updateItem(r -> r.tableName(table).key(key())
                .updateExpression("SET #status = :running, #start = :start")
                .expressionAttributeNames(Map.of("#status", SubmissionTable.STATUS, "#start", SubmissionTable.START_TIME))
                .expressionAttributeValues(Map.of(":running", AttributeValue.fromS("RUNNING"),
                        ":start", AttributeValue.fromS(TestClock.now().toString()))));
        return this;
    }

    /** Another relay recorded the run's final status, unconfirmed (as FinalReports does), and was killed. */
    GivenSubmission recordedFinal(String status) {
        stack.dynamoDb().updateItem(r -> r.tableName(table).key(key())
                .updateExpression("SET #status = :status, #sent = :false, #end = :end")
                .expressionAttributeNames(Map.of("#status", SubmissionTable.STATUS, "#sent", SubmissionTable.FINAL_SENT,
                        "#end", SubmissionTable.END_TIME))
                .expressionAttributeValues(Map.of(":status", AttributeValue.fromS(status),
                        ":false", AttributeValue.fromBool(false),
                        ":end", AttributeValue.fromS(TestClock.now().toString()))));
        return this;
    }

    /** That relay had sent EvalAI the final status (a final update without results) before it was killed. */
    GivenSubmission finalSentByAnotherRelay(String status) {
        String body = "{\"submission\": " + pk() + ", \"challenge_phase\": " + identity.phasePk()
                + ", \"submission_status\": \"" + status + "\", \"stdout\": \"\", \"stderr\": \"\", \"result\": \"\","
                + " \"metadata\": \"\"}";
        try {
            var answer = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(stack.evalAi().url() + "/api/jobs/challenge/" + identity.challengePk()
                            + "/update_submission/"))
                    .header("Authorization", "Bearer " + stack.quarkusConfig().get("evalai.token"))
                    .header("Content-Type", "application/json")
                    .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException("EvalAI answered " + answer.statusCode() + ": " + answer.body());
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return this;
    }

    /** Whether the cancel control object is in the bucket. */
    boolean cancelControl() {
        return stack.s3().listObjectsV2(r -> r.bucket(bucket).prefix(SubmissionLayout.cancelControl(id())))
                .keyCount() > 0;
    }

    /** The Job of the current run, as job-launcher names it. */
    String jobName() {
        return "team-" + identity.teamId() + "-" + identity.track().toLowerCase(Locale.ROOT).replace('_', '-') + "-"
                + identity.submissionPk() + "-r" + run;
    }

    long pk() {
        return identity.submissionPk();
    }

    String id() {
        return identity.submissionId();
    }

    /**
     * What logcopy uploads from the agents' checkpoints: the merged checkpoint ({@code agent_results.json}, merged by
     * the domain's {@link CheckpointMerge} against the 2 expected routes) and the three EvalAI files derived from it.
     * With {@code driving_score} and {@code route_completion}, both routes are done with those scores (one collision
     * with a vehicle on the first, blocked once and 52.147 m off-road on the second); without, one route of two.
     */
    GivenSubmission results(Map<String, Double> scores) {
        if (scores.isEmpty()) {
            return results(route(0, 48.0, 80.0, "{}"));
        }
        double composed = scores.get("driving_score");
        double route = scores.get("route_completion");
        return results(route(0, composed, route, "{\"collisions_vehicle\": [\"Agent collided against object\"]}"),
                route(1, composed, route, "{\"vehicle_blocked\": [\"Agent got blocked\"], \"outside_route_lanes\":"
                        + " [\"Agent went outside its route lanes for about 52.147 meters (3.13% of the completed"
                        + " route)\"]}"));
    }

    /** The merged checkpoint of these route records (JSON), as logcopy merges and uploads it, with the EvalAI files. */
    GivenSubmission results(String... records) {
        var merge = CheckpointMerge.merge(List.of(ResultsJson.parse(checkpoint(records))), OptionalInt.of(2));
        return mergedResults(ResultsJson.write(merge.merged()));
    }

    /** An agent's checkpoint of these route records (JSON), of a submission of 2 routes, as the evaluator writes it. */
    static String checkpoint(String... records) {
        return """
                {"_checkpoint": {"global_record": {}, "progress": [%d, 2], "records": [%s]},
                 "entry_status": "Started", "eligible": false, "sensors": ["carla_camera", "carla_camera", "carla_gnss"],
                 "values": [], "labels": []}""".formatted(records.length, String.join(", ", records));
    }

    /** This text as the merged checkpoint (a participant's code can write it), with the EvalAI files derived from it. */
    GivenSubmission mergedResults(String merged) {
        put(podDir + LogsLayout.mergedCheckpoint(), merged);
        var texts = EvalAiFiles.texts(merged);
        texts.forEach((name, text) -> put(podDir + LogsLayout.evalAiFile(name), text));
        resultsText = texts.get(EvalAiFiles.RESULTS);
        return this;
    }

    /** One finished route record. */
    static String route(int route, double composed, double completion, String infractions) {
        return """
                {"index": %d, "route_id": "RouteScenario_%d_rep0", "status": "Completed", "num_infractions": 0,
                 "infractions": %s, "scores": {"score_route": %s, "score_penalty": %s, "score_composed": %s},
                 "meta": {"route_length": 750.0, "duration_game": 150.0, "duration_system": 300.0}}"""
                .formatted(route, route, infractions, completion, completion == 0 ? 0 : composed / completion,
                        composed);
    }

    /** The stdout.txt logcopy uploaded. */
    String stdout() {
        return stack.s3().getObjectAsBytes(r -> r.bucket(bucket)
                .key(SubmissionLayout.key(id(), LogsLayout.evalAiFile(EvalAiFiles.STDOUT)))).asUtf8String();
    }

    /** The status files of a run where every container finished its work. */
    GivenSubmission allDone() {
        var names = new ArrayList<String>();
        for (int pair = 1; pair <= workerPairs; pair++) {
            names.add(StatusFiles.done(StatusFiles.Role.AGENT, pair));
            names.add(StatusFiles.done(StatusFiles.Role.SIMULATOR, pair));
        }
        names.add(StatusFiles.LOGCOPY_DONE);
        return statusFiles(names.toArray(String[]::new));
    }

    GivenSubmission statusFiles(String... names) {
        for (String name : names) {
            put(podDir + StatusFiles.DIRECTORY + "/" + name, "");
        }
        return this;
    }

    /**
     * A run of {@code pods} pods, as ingest-service records it from its track: the results and status files placed
     * next are pod {@code index}'s, in its folder ({@link SubmissionLayout#podDir}), as its logcopy uploads them.
     */
    GivenSubmission inPod(int index, int pods) {
        stack.dynamoDb().updateItem(r -> r.tableName(table).key(key()).updateExpression("SET #pods = :pods")
                .expressionAttributeNames(Map.of("#pods", SubmissionTable.PODS))
                .expressionAttributeValues(Map.of(":pods", AttributeValue.fromN(Integer.toString(pods)))));
        podDir = SubmissionLayout.podDir(index, pods);
        return this;
    }

    /** A log of {@code lines} numbered lines, as logcopy uploads it. */
    GivenSubmission log(String relativeKey, String prefix, int lines) {
        put(relativeKey, IntStream.rangeClosed(1, lines).mapToObj(i -> prefix + " line " + i)
                .collect(Collectors.joining("\n", "", "\n")));
        return this;
    }

    void put(String relativeKey, String text) {
        stack.s3().putObject(r -> r.bucket(bucket).key(SubmissionLayout.key(id(), relativeKey)),
                RequestBody.fromString(text));
    }

    /** The run's pod started running ten minutes ago. */
    JobStarted jobStarted() {
        return jobStarted(TestClock.now().minusSeconds(600));
    }

    JobStarted jobStarted(Instant podStartedAt) {
        return JobStarted.of(identity, run, jobName(), podStartedAt, TestClock.now());
    }

    /** logcopy's report of the results placed last ({@link #results}), with their digest. */
    Progress progress(int done, int total) {
        return Progress.of(SubmissionRef.of(identity), run, done, total, done == total, sha256(resultsText), false,
                null, List.of(), TestClock.now());
    }

    /** logcopy's last report, how it ended, and what it could not upload. */
    Progress lastReport(Progress.Ending ending, List<String> notUploaded) {
        return Progress.of(SubmissionRef.of(identity), run, 2, 2, true, sha256(resultsText), false, ending,
                notUploaded, TestClock.now());
    }

    /** The run's Job ended a minute ago (longer than the relay waits for logcopy's last report in tests). */
    JobFinished jobFinished(JobFinished.Outcome outcome, String reason, List<ContainerOutcome> containers) {
        return jobFinished(outcome, reason, containers, TestClock.now().minusSeconds(60));
    }

    JobFinished jobFinished(JobFinished.Outcome outcome, String reason, List<ContainerOutcome> containers,
            Instant finishedAt) {
        return JobFinished.of(identity, run, jobName(), outcome, reason, workerPairs, finishedAt.minusSeconds(600),
                finishedAt, containers, TestClock.now());
    }

    /** As {@link #jobFinished(JobFinished.Outcome, String, List)}, of a run of several pods, each with its time. */
    JobFinished jobFinished(JobFinished.Outcome outcome, String reason, List<ContainerOutcome> containers,
            List<JobFinished.PodSpan> pods) {
        Instant finishedAt = TestClock.now().minusSeconds(60);
        return JobFinished.of(identity, run, jobName(), outcome, reason, workerPairs, finishedAt.minusSeconds(600),
                finishedAt, containers, pods, TestClock.now());
    }

    JobFinished succeeded() {
        return jobFinished(JobFinished.Outcome.SUCCEEDED, null, List.of());
    }

    NotLaunched notLaunched(NotLaunched.Reason reason) {
        return NotLaunched.of(identity, run, reason, "decided at intake", TestClock.now());
    }

    /** Puts the lifecycle events on {@code submission-events}, in this order, as ingest and the launcher do. */
    void send(SubmissionEvent... events) {
        var publisher = QueuePublisher.to(stack.sqs(), stack.queueUrl(QueuesConfig.SUBMISSION_EVENTS));
        for (SubmissionEvent event : events) {
            publisher.publish(event);
        }
    }

    /**
     * Puts a {@code job-finished} of no pods on {@code submission-events} as a launcher from before {@code pods} and
     * {@code containers[].pod} wrote it: without those fields.
     */
    void sendAsAnEarlierLauncher(JobFinished event) {
        String body = org.carla.leaderboard.domain.event.EventCodec.write(event).replace(",\"pods\":[]", "")
                .replace(",\"pod\":null", "");
        if (body.contains("\"pods\"") || body.contains("\"pod\"")) {
            throw new IllegalArgumentException("an earlier launcher's event names no pod: " + body);
        }
        stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.SUBMISSION_EVENTS)).messageBody(body)
                .messageAttributes(Map.of(QueuePublisher.TYPE_ATTRIBUTE, software.amazon.awssdk.services.sqs.model
                        .MessageAttributeValue.builder().dataType("String").stringValue(event.type()).build())));
    }

    /** Puts the reports on {@code progress-reports}, in this order, as logcopy does. */
    void report(Progress... reports) {
        var publisher = QueuePublisher.to(stack.sqs(), stack.queueUrl(QueuesConfig.PROGRESS_REPORTS));
        for (Progress report : reports) {
            publisher.publish(report);
        }
    }

    /** The submission's record now. */
    /** What job-launcher writes when the run's pod started: the images it ran, by digest. */
    GivenSubmission podRan(RunImages images) {
        stack.dynamoDb().updateItem(r -> r.tableName(table).key(key()).updateExpression("SET #images = :images")
                .expressionAttributeNames(Map.of("#images", SubmissionTable.RUN_IMAGES))
                .expressionAttributeValues(Map.of(":images", images.attribute())));
        return this;
    }

    Map<String, AttributeValue> record() {
        return stack.dynamoDb().getItem(r -> r.tableName(table).consistentRead(true).key(key())).item();
    }

    private Map<String, AttributeValue> key() {
        return Map.of(SubmissionTable.TEAM_ID, AttributeValue.fromS(Long.toString(identity.teamId())),
                SubmissionTable.SUBMISSION_ID, AttributeValue.fromS(id()));
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    String recordStatus() {
        var status = record().get("submission_status");
        return status == null ? null : status.s();
    }

    SubmissionView onEvalAi() {
        return stack.evalAi().submission(pk()).orElseThrow();
    }
}
