package org.carla.leaderboard.ingest.service;

import static org.carla.leaderboard.domain.record.SubmissionTable.CHALLENGE_ID;
import static org.carla.leaderboard.domain.record.SubmissionTable.END_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.EXPECTED_ROUTES;
import static org.carla.leaderboard.domain.record.SubmissionTable.FINAL_SENT;
import static org.carla.leaderboard.domain.record.SubmissionTable.HISTORY;
import static org.carla.leaderboard.domain.record.SubmissionTable.IMAGE_URI;
import static org.carla.leaderboard.domain.record.SubmissionTable.LAST_ENDING;
import static org.carla.leaderboard.domain.record.SubmissionTable.NOT_UPLOADED;
import static org.carla.leaderboard.domain.record.SubmissionTable.INSTANCE_TYPE;
import static org.carla.leaderboard.domain.record.SubmissionTable.LEADERBOARD;
import static org.carla.leaderboard.domain.record.SubmissionTable.NOT_YET;
import static org.carla.leaderboard.domain.record.SubmissionTable.RESUMED_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.RESUMES;
import static org.carla.leaderboard.domain.record.SubmissionTable.RUN;
import static org.carla.leaderboard.domain.record.SubmissionTable.START_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.STATUS;
import static org.carla.leaderboard.domain.record.SubmissionTable.SUBMISSION_ID;
import static org.carla.leaderboard.domain.record.SubmissionTable.SUBMITTED_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.TEAM_ID;
import static org.carla.leaderboard.domain.record.SubmissionTable.TEAM_NAME;
import static org.carla.leaderboard.domain.record.SubmissionTable.TRACK_ID;
import static org.carla.leaderboard.domain.record.SubmissionTable.TRACK_NAME;
import static org.carla.leaderboard.domain.record.SubmissionTable.PODS;
import static org.carla.leaderboard.domain.record.SubmissionTable.WORKERS;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.ingest.SubmissionRecord;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The intake's writes to the submissions tables. Each decision reads the record, then writes conditionally on what it
 * read, so a repeated or late message never resets a record that moved on and two deliveries racing each other
 * cannot both open a run (the loser's write fails its condition and the message is tried again, finding the
 * winner's record): an announcement creates the record at run 1; a resume opens the next run of a record whose
 * current run is over, once per resume EvalAI made. A record still SUBMITTED by this very announcement or resume has
 * its run published again (the first delivery may have stopped before publishing).
 */
@ApplicationScoped
public class SubmissionRecords {

    private static final String BY = "ingest-service";

    private final DynamoDbClient dynamo;

    SubmissionRecords(DynamoDbClient dynamo) {
        this.dynamo = dynamo;
    }

    /**
     * What the intake found: the run to publish now, or, when {@code launch} is empty, the state that makes the
     * message a repeat.
     */
    public record Outcome(Optional<Integer> launch, String status, int run) {

        static Outcome launch(int run) {
            return new Outcome(Optional.of(run), SubmissionStatus.SUBMITTED.name(), run);
        }

        static Outcome repeat(String status, int run) {
            return new Outcome(Optional.empty(), status, run);
        }
    }

    /** Thrown when another delivery changed the record between the read and the write; the message is retried. */
    public static final class ConcurrentChangeException extends RuntimeException {
        ConcurrentChangeException(String submissionId) {
            super("the record of submission " + submissionId + " changed while it was written; trying again");
        }
    }

    /** A newly announced submission: a new record at run 1, or the run of a record still SUBMITTED. */
    public Outcome recordAnnounced(String table, SubmissionRecord record, Instant now) {
        var current = read(table, record);
        if (current.isEmpty()) {
            create(table, record, now, Optional.empty());
            return Outcome.launch(1);
        }
        var found = current.get();
        return SubmissionStatus.SUBMITTED.name().equals(found.status()) ? Outcome.launch(found.run())
                : Outcome.repeat(found.status(), found.run());
    }

    /**
     * A resume EvalAI made at {@code resumedAt} (its {@code rerun_resumed_at}): run + 1, SUBMITTED, no start or end
     * time, the resume counted, once per resume; a record whose current run is not over is left alone.
     */
    public Outcome recordResumed(String table, SubmissionRecord record, Instant resumedAt, Instant now) {
        var current = read(table, record);
        if (current.isEmpty()) {
            create(table, record, now, Optional.of(resumedAt));
            return Outcome.launch(1);
        }
        var found = current.get();
        boolean thisResume = resumedAt.toString().equals(found.resumedTime());
        if (thisResume) {
            return SubmissionStatus.SUBMITTED.name().equals(found.status()) ? Outcome.launch(found.run())
                    : Outcome.repeat(found.status(), found.run());
        }
        boolean over = SubmissionStatus.parse(found.status()).filter(SubmissionStatus::isTerminal).isPresent();
        if (!over) {
            return Outcome.repeat(found.status(), found.run());
        }
        int next = found.run() + 1;
        var write = new Write(record, now, next, "resumed (EvalAI " + resumedAt + ")");
        write.names.put("#resumed_time", RESUMED_TIME);
        write.names.put("#resumes", RESUMES);
        write.names.put("#final_sent", FINAL_SENT);
        write.names.put("#last_ending", LAST_ENDING);
        write.names.put("#not_uploaded", NOT_UPLOADED);
        write.values.put(":resumed_time", text(resumedAt.toString()));
        write.values.put(":current", number(found.run()));
        write.values.put(":old_status", text(found.status()));
        write.values.put(":false", AttributeValue.fromBool(false));
        write.update(table, "SET " + write.fields() + ", #run = :run, #end_time = :not_yet, #start_time = :not_yet, "
                + "#resumed_time = :resumed_time, #final_sent = :false, "
                + "#history = list_append(if_not_exists(#history, :empty), :history) ADD #resumes :one"
                // How the last run's logcopy ended is that run's: the relay judges the next run's end by its own.
                + " REMOVE #last_ending, #not_uploaded",
                "#run = :current AND #status = :old_status");
        return Outcome.launch(next);
    }

    /** The status stored for a submission, if it has a record. */
    public Optional<String> status(String table, String teamId, String submissionId) {
        var item = dynamo.getItem(r -> r.tableName(table).consistentRead(true).key(key(teamId, submissionId))).item();
        return Optional.ofNullable(item).map(i -> i.get(STATUS)).map(AttributeValue::s);
    }

    private void create(String table, SubmissionRecord record, Instant now, Optional<Instant> resumedAt) {
        var write = new Write(record, now, 1, resumedAt.map(at -> "resumed (EvalAI " + at + ")").orElse("announced"));
        String extra = "";
        if (resumedAt.isPresent()) {
            write.names.put("#resumed_time", RESUMED_TIME);
            write.values.put(":resumed_time", text(resumedAt.get().toString()));
            extra = ", #resumed_time = :resumed_time";
        }
        write.update(table, "SET " + write.fields() + ", #run = :run, #end_time = :not_yet, #start_time = :not_yet, "
                + "#history = :history" + extra, "attribute_not_exists(#submission_id)");
    }

    private record Found(String status, int run, String resumedTime) {
    }

    private Optional<Found> read(String table, SubmissionRecord record) {
        var item = dynamo.getItem(r -> r.tableName(table).consistentRead(true)
                .key(key(record.teamId(), record.submissionId()))).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        String status = item.containsKey(STATUS) ? item.get(STATUS).s() : "unknown";
        int run = item.containsKey(RUN) && item.get(RUN).n() != null ? Integer.parseInt(item.get(RUN).n()) : 1;
        String resumed = item.containsKey(RESUMED_TIME) ? item.get(RESUMED_TIME).s() : null;
        return Optional.of(new Found(status, run, resumed));
    }

    /** One conditional write of the intake's attributes for run {@code run}, with its history entry. */
    private final class Write {

        final SubmissionRecord record;
        final Map<String, String> names = new HashMap<>();
        final Map<String, AttributeValue> values = new HashMap<>();

        Write(SubmissionRecord record, Instant now, int run, String detail) {
            this.record = record;
            for (String attribute : new String[] { SUBMISSION_ID, TEAM_NAME, TRACK_ID, TRACK_NAME, CHALLENGE_ID,
                    LEADERBOARD, EXPECTED_ROUTES, INSTANCE_TYPE, SUBMITTED_TIME, START_TIME, END_TIME, RUN }) {
                names.put("#" + attribute, attribute);
            }
            names.put("#history", HISTORY);
            names.put("#status", STATUS);
            names.put("#image", IMAGE_URI);
            names.put("#workers", WORKERS);
            names.put("#pods", PODS);
            var submission = record.submission();
            var track = record.track();
            values.put(":team_name", text(submission.teamName()));
            values.put(":submitted", text(SubmissionStatus.SUBMITTED.name()));
            values.put(":track_id", text(Long.toString(submission.phasePk())));
            values.put(":track_name", text(submission.track()));
            values.put(":challenge_id", text(Long.toString(submission.challengePk())));
            values.put(":leaderboard", text(submission.leaderboard()));
            values.put(":expected_routes", number(track.expectedRouteRecords()));
            values.put(":instance_type", text(track.instanceType()));
            values.put(":image", text(record.imageUri() == null ? NOT_YET : record.imageUri()));
            values.put(":workers", number(track.effectiveWorkerPairs()));
            values.put(":pods", number(track.pods()));
            values.put(":submitted_time", text(record.submittedAt().toString()));
            values.put(":not_yet", text(NOT_YET));
            values.put(":run", number(run));
            values.put(":one", number(1));
            values.put(":empty", AttributeValue.fromL(List.of()));
            values.put(":history", AttributeValue.fromL(List.of(AttributeValue.fromM(Map.of(
                    SubmissionTable.HISTORY_AT, text(now.toString()),
                    SubmissionTable.HISTORY_RUN, number(run),
                    SubmissionTable.HISTORY_STATUS, text(SubmissionStatus.SUBMITTED.name()),
                    SubmissionTable.HISTORY_BY, text(BY),
                    SubmissionTable.HISTORY_DETAIL, text(detail))))));
        }

        String fields() {
            return "#team_name = :team_name, #status = :submitted, #track_id = :track_id, #track_name = :track_name, "
                    + "#challenge_id = :challenge_id, #leaderboard = :leaderboard, "
                    + "#expected_routes = :expected_routes, #instance_type = :instance_type, #image = :image, "
                    + "#workers = :workers, #pods = :pods, #submitted_time = if_not_exists(#submitted_time, :submitted_time)";
        }

        void update(String table, String expression, String condition) {
            // Only the placeholders the expressions use: DynamoDB refuses unused ones.
            String used = expression + " " + condition;
            names.keySet().removeIf(name -> !uses(used, name));
            values.keySet().removeIf(name -> !uses(used, name));
            try {
                dynamo.updateItem(r -> r.tableName(table).key(key(record.teamId(), record.submissionId()))
                        .updateExpression(expression).conditionExpression(condition)
                        .expressionAttributeNames(names).expressionAttributeValues(values));
            } catch (ConditionalCheckFailedException e) {
                throw new ConcurrentChangeException(record.submissionId());
            }
        }
    }

    private static boolean uses(String expression, String placeholder) {
        return java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(placeholder) + "(?![A-Za-z0-9_])")
                .matcher(expression).find();
    }

    private static Map<String, AttributeValue> key(String teamId, String submissionId) {
        return Map.of(TEAM_ID, text(teamId), SUBMISSION_ID, text(submissionId));
    }

    private static AttributeValue text(String value) {
        return AttributeValue.fromS(value);
    }

    private static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}
