package org.carla.leaderboard.relay.store;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.status.SubmissionStatus;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The leaderboard's submissions table (key {@code team_id} + {@code submission_id}). Every write the relay makes is
 * conditional on the record not being terminal yet, so a late or repeated event never moves a submission out of
 * FINISHED, FAILED or CANCELLED.
 */
@ApplicationScoped
public class SubmissionRecords {

    public static final String STATUS = "submission_status";
    public static final String FINAL_SENT = "evalai_final_sent";
    /** Absent metric, as the original records it. */
    public static final String ABSENT = "-";

    private static final String NOT_TERMINAL = "attribute_not_exists(#status) OR NOT (#status IN (:finished, :failed, :cancelled))";

    private final DynamoDbClient dynamoDb;

    SubmissionRecords(DynamoDbClient dynamoDb) {
        this.dynamoDb = dynamoDb;
    }

    public Optional<SubmissionRecord> find(String table, SubmissionIdentity submission) {
        var item = dynamoDb.getItem(r -> r.tableName(table).key(key(submission)).consistentRead(true)).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        var status = item.get(STATUS);
        var sent = item.get(FINAL_SENT);
        return Optional.of(new SubmissionRecord(status == null ? null : parse(status.s()),
                sent != null && Boolean.TRUE.equals(sent.bool())));
    }

    /** Records the Job's name; false when the record is already terminal. */
    public boolean recordJobName(String table, SubmissionIdentity submission, String jobName) {
        var values = terminalValues();
        values.put(":job", AttributeValue.fromS(jobName));
        return updateUnlessTerminal(table, submission, "SET job_name = :job", Map.of("#status", STATUS), values);
    }

    /** RUNNING, with the start time of the first report kept; false when the record is already terminal. */
    public boolean markRunning(String table, SubmissionIdentity submission, Instant startTime, String location) {
        var values = terminalValues();
        values.put(":running", AttributeValue.fromS(SubmissionStatus.RUNNING.name()));
        values.put(":start", AttributeValue.fromS(startTime.toString()));
        values.put(":location", AttributeValue.fromS(location));
        return updateUnlessTerminal(table, submission,
                "SET #status = :running, start_time = if_not_exists(start_time, :start), results_location = :location",
                Map.of("#status", STATUS), values);
    }

    /**
     * Makes the final status, end time and every metric ({@code null} → "-") the record's, with
     * {@code evalai_final_sent} false; false when the record was already terminal.
     */
    public boolean recordFinal(String table, SubmissionIdentity submission, SubmissionStatus status, Instant endTime,
            Map<String, Double> metrics) {
        if (!status.isTerminal()) {
            throw new IllegalArgumentException(status + " is not a final status");
        }
        var names = new HashMap<String, String>();
        var values = terminalValues();
        names.put("#status", STATUS);
        names.put("#sent", FINAL_SENT);
        values.put(":final", AttributeValue.fromS(status.name()));
        values.put(":end", AttributeValue.fromS(endTime.toString()));
        values.put(":notSent", AttributeValue.fromBool(false));
        var update = new StringBuilder("SET #status = :final, end_time = :end, #sent = :notSent");
        int i = 0;
        for (var metric : metrics.entrySet()) {
            // Metric names hold '-' (off-road_infractions): always through placeholders.
            names.put("#m" + i, metric.getKey());
            values.put(":m" + i, number(metric.getValue()));
            update.append(", #m").append(i).append(" = :m").append(i);
            i++;
        }
        return updateUnlessTerminal(table, submission, update.toString(), names, values);
    }

    /** Notes that EvalAI has the final status; only for a record that holds that status. */
    public void markFinalSent(String table, SubmissionIdentity submission, SubmissionStatus status) {
        dynamoDb.updateItem(r -> r.tableName(table).key(key(submission))
                .updateExpression("SET #sent = :sent")
                .conditionExpression("#status = :final")
                .expressionAttributeNames(Map.of("#sent", FINAL_SENT, "#status", STATUS))
                .expressionAttributeValues(Map.of(":sent", AttributeValue.fromBool(true),
                        ":final", AttributeValue.fromS(status.name()))));
    }

    /** Whether the table answers, for readiness. */
    public void describe(String table) {
        dynamoDb.describeTable(r -> r.tableName(table));
    }

    private boolean updateUnlessTerminal(String table, SubmissionIdentity submission, String update,
            Map<String, String> names, Map<String, AttributeValue> values) {
        try {
            dynamoDb.updateItem(r -> r.tableName(table).key(key(submission)).updateExpression(update)
                    .conditionExpression(NOT_TERMINAL).expressionAttributeNames(names)
                    .expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    private static Map<String, AttributeValue> terminalValues() {
        var values = new HashMap<String, AttributeValue>();
        values.put(":finished", AttributeValue.fromS(SubmissionStatus.FINISHED.name()));
        values.put(":failed", AttributeValue.fromS(SubmissionStatus.FAILED.name()));
        values.put(":cancelled", AttributeValue.fromS(SubmissionStatus.CANCELLED.name()));
        return values;
    }

    private static AttributeValue number(Double value) {
        if (value == null || value.isNaN() || value.isInfinite()) {
            return AttributeValue.fromS(ABSENT);
        }
        return AttributeValue.fromN(BigDecimal.valueOf(value).toPlainString());
    }

    private static Map<String, AttributeValue> key(SubmissionIdentity submission) {
        return Map.of("team_id", AttributeValue.fromS(Long.toString(submission.teamId())),
                "submission_id", AttributeValue.fromS(submission.submissionId()));
    }

    private static SubmissionStatus parse(String value) {
        try {
            return value == null ? null : SubmissionStatus.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
