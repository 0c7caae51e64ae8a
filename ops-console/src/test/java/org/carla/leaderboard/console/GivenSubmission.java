package org.carla.leaderboard.console;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.results.Metric;
import org.carla.leaderboard.localstack.RunningStack;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A submission's record as the services write it (the attribute names of {@link SubmissionTable}), and the files its
 * pod would have uploaded, for the console's tests. Ids are random: the stack is shared by every test class.
 */
final class GivenSubmission {

    static final String LEADERBOARD = "leaderboard-20";
    static final String TABLE = "leaderboard-20";

    final Map<String, AttributeValue> item = new HashMap<>();
    private final List<AttributeValue> history = new ArrayList<>();
    final String submissionId;
    final String teamId;

    private GivenSubmission(String submissionId, String teamId) {
        this.submissionId = submissionId;
        this.teamId = teamId;
        item.put(SubmissionTable.TEAM_ID, AttributeValue.fromS(teamId));
        item.put(SubmissionTable.SUBMISSION_ID, AttributeValue.fromS(submissionId));
        text(SubmissionTable.LEADERBOARD, LEADERBOARD);
        text(SubmissionTable.TRACK_NAME, "SENSORS");
        text(SubmissionTable.TRACK_ID, "2077");
        text(SubmissionTable.CHALLENGE_ID, "1");
        text(SubmissionTable.INSTANCE_TYPE, "g5.12xlarge");
        number(SubmissionTable.WORKERS, 2);
        number(SubmissionTable.RUN, 1);
        number(SubmissionTable.RESUMES, 0);
        for (String notYet : List.of(SubmissionTable.START_TIME, SubmissionTable.END_TIME, SubmissionTable.GPU_HOURS,
                SubmissionTable.LAST_PROGRESS_TIME, SubmissionTable.FAILURE_REASON)) {
            text(notYet, SubmissionTable.NOT_YET);
        }
    }

    /** A submission of a random id, unknown to EvalAI. */
    static GivenSubmission random(String teamName) {
        long id = ThreadLocalRandom.current().nextLong(1_000_000, 1_000_000_000L);
        return of(Long.toString(id), Long.toString(ThreadLocalRandom.current().nextLong(10_000, 99_999)), teamName);
    }

    static GivenSubmission of(String submissionId, String teamId, String teamName) {
        return new GivenSubmission(submissionId, teamId).text(SubmissionTable.TEAM_NAME, teamName);
    }

    GivenSubmission text(String attribute, String value) {
        item.put(attribute, AttributeValue.fromS(value));
        return this;
    }

    GivenSubmission attribute(String attribute, AttributeValue value) {
        item.put(attribute, value);
        return this;
    }

    GivenSubmission number(String attribute, double value) {
        item.put(attribute, AttributeValue.fromN(Double.toString(value).replaceAll("\\.0$", "")));
        return this;
    }

    GivenSubmission time(String attribute, Instant at) {
        return text(attribute, at.toString());
    }

    GivenSubmission track(String track, String phase) {
        return text(SubmissionTable.TRACK_NAME, track).text(SubmissionTable.TRACK_ID, phase);
    }

    /** Takes the status and adds the history entry, as every writer does in one conditional write. */
    GivenSubmission status(String status, Instant at, int run, String by, String detail) {
        text(SubmissionTable.STATUS, status);
        var entry = new HashMap<String, AttributeValue>();
        entry.put(SubmissionTable.HISTORY_AT, AttributeValue.fromS(at.toString()));
        entry.put(SubmissionTable.HISTORY_RUN, AttributeValue.fromN(Integer.toString(run)));
        entry.put(SubmissionTable.HISTORY_STATUS, AttributeValue.fromS(status));
        entry.put(SubmissionTable.HISTORY_BY, AttributeValue.fromS(by));
        if (detail != null) {
            entry.put(SubmissionTable.HISTORY_DETAIL, AttributeValue.fromS(detail));
        }
        history.add(AttributeValue.fromM(entry));
        return this;
    }

    GivenSubmission submitted(Instant at) {
        return time(SubmissionTable.SUBMITTED_TIME, at).status("SUBMITTED", at, 1, "ingest-service", null);
    }

    GivenSubmission launched(Instant at, String jobName) {
        int run = Integer.parseInt(item.get(SubmissionTable.RUN).n());
        return time(SubmissionTable.LAUNCHED_TIME, at).text(SubmissionTable.JOB_NAME, jobName)
                .number(SubmissionTable.LAUNCHED_RUN, run).status("PENDING", at, run, "job-launcher", jobName);
    }

    GivenSubmission running(Instant at) {
        int run = Integer.parseInt(item.get(SubmissionTable.RUN).n());
        return time(SubmissionTable.START_TIME, at).status("RUNNING", at, run, "results-relay", "running sent");
    }

    GivenSubmission progress(Instant at, int done, int total, double drivingScore) {
        return time(SubmissionTable.LAST_PROGRESS_TIME, at).number(SubmissionTable.ROUTES_DONE, done)
                .number(SubmissionTable.ROUTES_TOTAL, total).number(Metric.DRIVING_SCORE.attribute(), drivingScore);
    }

    GivenSubmission ended(String status, Instant at, boolean confirmed, double gpuHours) {
        int run = Integer.parseInt(item.get(SubmissionTable.RUN).n());
        item.put(SubmissionTable.FINAL_SENT, AttributeValue.fromBool(confirmed));
        number(SubmissionTable.JOB_ENDED_RUN, run);
        return time(SubmissionTable.END_TIME, at).number(SubmissionTable.GPU_HOURS, gpuHours)
                .status(status, at, run, "results-relay", "final " + status.toLowerCase() + " sent");
    }

    void writeTo(RunningStack stack) {
        var all = new HashMap<>(item);
        all.put(SubmissionTable.HISTORY, AttributeValue.fromL(history));
        stack.dynamoDb().putItem(r -> r.tableName(TABLE).item(all));
    }

    /** An object of the submission's prefix, as logcopy uploads it. */
    void upload(RunningStack stack, String relative, String content) {
        String bucket = stack.evaluation().leaderboards().get(LEADERBOARD).bucket();
        stack.s3().putObject(r -> r.bucket(bucket).key(SubmissionLayout.key(submissionId, relative)),
                RequestBody.fromString(content));
    }
}
