package org.carla.leaderboard.ingest.service;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.ingest.SubmissionRecord;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * The submissions tables. Every write is conditional, so a repeated or late message never resets a record that
 * results-relay has moved on: a fresh announcement writes only a new record or one still SUBMITTED; a resume reopens
 * any record whose Job is not running.
 */
@ApplicationScoped
public class SubmissionRecords {

    private static final String FIELDS = "#team_name = :team_name, #status = :submitted, #track_id = :track_id, "
            + "#track_name = :track_name, #image = :image, #workers = :workers, "
            + "#submitted_time = if_not_exists(#submitted_time, :submitted_time), "
            + "#start_time = if_not_exists(#start_time, :not_yet)";

    private final DynamoDbClient dynamo;

    SubmissionRecords(DynamoDbClient dynamo) {
        this.dynamo = dynamo;
    }

    /**
     * Writes the record of a newly announced submission.
     *
     * @return empty when written (the record is new or still SUBMITTED, so a launch may be requested); otherwise the
     *         status the record has already moved on to
     */
    public Optional<String> recordAnnounced(String table, SubmissionRecord record) {
        return update(table, record, "SET " + FIELDS + ", #end_time = if_not_exists(#end_time, :not_yet)",
                "attribute_not_exists(#submission_id) OR #status = :submitted", Map.of(), Map.of());
    }

    /**
     * Reopens the record for a resume, a new launch of the same submission: SUBMITTED again, no end time, the resume
     * counted. Refused while the record shows the submission RUNNING: its Job is still there.
     *
     * @return empty when written; otherwise the status that refused it
     */
    public Optional<String> recordResumed(String table, SubmissionRecord record, Instant resumedAt) {
        return update(table, record, "SET " + FIELDS + ", #end_time = :not_yet, #resumed_time = :resumed_time "
                + "ADD #resumes :one", "attribute_not_exists(#submission_id) OR #status <> :running",
                Map.of("#resumed_time", SubmissionRecord.RESUMED_TIME, "#resumes", SubmissionRecord.RESUMES),
                Map.of(":resumed_time", text(resumedAt.toString()), ":one", AttributeValue.fromN("1"),
                        ":running", text(SubmissionStatus.RUNNING.name())));
    }

    /** The status stored for a submission, if it has a record. */
    public Optional<String> status(String table, String teamId, String submissionId) {
        var item = dynamo.getItem(r -> r.tableName(table).consistentRead(true)
                .key(Map.of(SubmissionRecord.TEAM_ID, text(teamId), SubmissionRecord.SUBMISSION_ID, text(submissionId))))
                .item();
        return Optional.ofNullable(item).map(i -> i.get(SubmissionRecord.STATUS)).map(AttributeValue::s);
    }

    private Optional<String> update(String table, SubmissionRecord record, String expression, String condition,
            Map<String, String> extraNames, Map<String, AttributeValue> extraValues) {
        var names = new HashMap<String, String>(extraNames);
        for (String attribute : new String[] { SubmissionRecord.SUBMISSION_ID, SubmissionRecord.TEAM_NAME,
                SubmissionRecord.TRACK_ID, SubmissionRecord.TRACK_NAME, SubmissionRecord.SUBMITTED_TIME, SubmissionRecord.START_TIME, SubmissionRecord.END_TIME }) {
            names.put("#" + attribute, attribute);
        }
        names.put("#status", SubmissionRecord.STATUS);
        names.put("#image", SubmissionRecord.IMAGE_URI);
        names.put("#workers", SubmissionRecord.WORKERS);
        var values = new HashMap<String, AttributeValue>(extraValues);
        values.put(":team_name", text(record.submission().teamName()));
        values.put(":submitted", text(SubmissionRecord.INITIAL_STATUS.name()));
        values.put(":track_id", text(Long.toString(record.phasePk())));
        values.put(":track_name", text(record.submission().track()));
        values.put(":image", text(record.imageUri() == null ? SubmissionRecord.NOT_YET : record.imageUri()));
        values.put(":workers", AttributeValue.fromN(Integer.toString(record.workerPairs())));
        values.put(":submitted_time", text(record.submittedAt().toString()));
        values.put(":not_yet", text(SubmissionRecord.NOT_YET));
        try {
            dynamo.updateItem(r -> r.tableName(table).key(key(record)).updateExpression(expression)
                    .conditionExpression(condition).expressionAttributeNames(names).expressionAttributeValues(values)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            return Optional.empty();
        } catch (ConditionalCheckFailedException e) {
            var old = e.hasItem() ? e.item().get(SubmissionRecord.STATUS) : null;
            if (old != null && old.s() != null) {
                return Optional.of(old.s());
            }
            // Older DynamoDB implementations do not return the item; read it.
            return Optional.of(status(table, record.teamId(), record.submissionId()).orElse("unknown"));
        }
    }

    private static Map<String, AttributeValue> key(SubmissionRecord record) {
        return Map.of(SubmissionRecord.TEAM_ID, text(record.teamId()), SubmissionRecord.SUBMISSION_ID,
                text(record.submissionId()));
    }

    private static AttributeValue text(String value) {
        return AttributeValue.fromS(value);
    }
}
