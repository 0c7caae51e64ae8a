package org.carla.leaderboard.relay;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.results.Metric;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.evalai.SubmissionView;
import org.carla.leaderboard.messaging.QueuesConfig;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The given-steps of a relay scenario: a submission on the EvalAI stand-in, its record as ingest-service wrote it,
 * the files logcopy would have uploaded to the leaderboard's bucket, and the events the launcher and logcopy send.
 */
final class GivenSubmission {

    private static final AtomicLong TEAMS = new AtomicLong(System.nanoTime() % 1_000_000 * 100);

    final RunningStack stack;
    final SubmissionIdentity identity;
    final String bucket;
    final String table;
    final int workerPairs;
    final String jobName;

    private GivenSubmission(RunningStack stack, SubmissionIdentity identity, int workerPairs) {
        this.stack = stack;
        this.identity = identity;
        var leaderboard = stack.evaluation().leaderboards().get(identity.leaderboard());
        this.bucket = leaderboard.bucket();
        this.table = leaderboard.submissionsTable();
        this.workerPairs = workerPairs;
        this.jobName = "team-" + identity.teamId() + "-" + identity.track().toLowerCase(Locale.ROOT).replace('_', '-')
                + "-" + identity.submissionPk();
    }

    /** A participant submits to the phase; ingest-service recorded it as SUBMITTED. */
    static GivenSubmission submitted(RunningStack stack, long phasePk) {
        long teamId = TEAMS.incrementAndGet();
        var phase = stack.evaluation().phases().get(Long.toString(phasePk));
        SubmissionView view = EvalAiStandInResource.standIn().createSubmission(
                NewSubmission.of(teamId, "Team " + teamId, phasePk, "registry.example/team/agent:1"));
        var identity = new SubmissionIdentity(view.pk(), view.challengePk(), phasePk, teamId, "Team " + teamId,
                phase.leaderboard(), phase.track());
        var given = new GivenSubmission(stack, identity, 2);
        stack.dynamoDb().putItem(r -> r.tableName(given.table).item(Map.of(
                "team_id", AttributeValue.fromS(Long.toString(teamId)),
                "submission_id", AttributeValue.fromS(identity.submissionId()),
                "submission_status", AttributeValue.fromS("SUBMITTED"))));
        return given;
    }

    long pk() {
        return identity.submissionPk();
    }

    String id() {
        return identity.submissionId();
    }

    /** logcopy's three EvalAI files for a run whose global results are the given metrics (by attribute). */
    GivenSubmission evalAiFiles(Map<String, Double> metrics, String stdout) {
        var accuracies = new StringBuilder();
        for (Metric metric : Metric.values()) {
            if (!accuracies.isEmpty()) {
                accuracies.append(",\n            ");
            }
            accuracies.append('"').append(metric.accuracy()).append("\": ")
                    .append(metrics.getOrDefault(metric.attribute(), 0.0));
        }
        put("evalai/results.json", """
                [
                    {
                        "split": "leaderboard",
                        "show_to_participant": true,
                        "accuracies": {
                            %s
                        }
                    }
                ]""".formatted(accuracies));
        put("evalai/stdout.txt", stdout);
        put("evalai/metadata.json", """
                {"_checkpoint": {"global_record": {}, "progress": [2, 2], "records": []},
                 "entry_status": "Finished", "eligible": true, "sensors": ["carla_camera"], "values": [], "labels": []}""");
        return this;
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
            put(StatusFiles.DIRECTORY + "/" + name, "");
        }
        return this;
    }

    /** A log of {@code lines} numbered lines, as logcopy uploads it. */
    GivenSubmission log(String relativeKey, String prefix, int lines) {
        put(relativeKey, IntStream.rangeClosed(1, lines).mapToObj(i -> prefix + " line " + i)
                .collect(Collectors.joining("\n", "", "\n")));
        return this;
    }

    void put(String relativeKey, String text) {
        stack.s3().putObject(r -> r.bucket(bucket).key(id() + "/" + relativeKey), RequestBody.fromString(text));
    }

    JobStarted jobStarted() {
        return JobStarted.of(identity, jobName, Instant.now());
    }

    Progress progress(int done, int total) {
        return Progress.of(identity, done, total, done == total, Progress.EvalAiFileKeys.under(id()), Instant.now());
    }

    JobFinished jobFinished(JobFinished.Outcome outcome, String reason, List<ContainerOutcome> containers) {
        Instant now = Instant.now();
        return JobFinished.of(identity, jobName, outcome, reason, workerPairs, now.minusSeconds(600), now, containers,
                now);
    }

    JobFinished succeeded() {
        return jobFinished(JobFinished.Outcome.SUCCEEDED, null, List.of());
    }

    NotLaunched notLaunched(NotLaunched.Reason reason) {
        return NotLaunched.of(identity, reason, "decided at intake", Instant.now());
    }

    /** Puts the events on {@code submission-events}, in this order. */
    void send(SubmissionEvent... events) {
        for (SubmissionEvent event : events) {
            stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.SUBMISSION_EVENTS))
                    .messageBody(EventCodec.write(event)));
        }
    }

    /** The submission's record now. */
    Map<String, AttributeValue> record() {
        return stack.dynamoDb().getItem(r -> r.tableName(table).consistentRead(true).key(Map.of(
                "team_id", AttributeValue.fromS(Long.toString(identity.teamId())),
                "submission_id", AttributeValue.fromS(id())))).item();
    }

    String recordStatus() {
        var status = record().get("submission_status");
        return status == null ? null : status.s();
    }

    SubmissionView onEvalAi() {
        return EvalAiStandInResource.standIn().submission(pk()).orElseThrow();
    }
}
