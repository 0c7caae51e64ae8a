package org.carla.leaderboard.console.client;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.console.SubmissionRecord;
import org.carla.leaderboard.console.SubmissionRecord.StatusChange;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.results.Metric;
import org.carla.leaderboard.domain.status.SubmissionStatus;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;

/**
 * The leaderboards' submissions tables, read only. The list is a Scan (the tables' key is team + submission, with no
 * index by time): it reads every item of the table whatever the filter, so a look costs the table's size in read
 * units, bounded by {@code limit} items per table.
 */
@ApplicationScoped
public class SubmissionTables {

    private static final String DRIVING_SCORE = Metric.DRIVING_SCORE.attribute();

    private final DynamoDbClient dynamoDb;

    SubmissionTables(DynamoDbClient dynamoDb) {
        this.dynamoDb = dynamoDb;
    }

    /** The records of one table. */
    public record Page(List<SubmissionRecord> records, boolean truncated) {
    }

    /**
     * The records submitted, resumed or ended since {@code since}, or not ended at all; at most {@code limit} items
     * read (then {@link Page#truncated()}).
     */
    public Page recent(String leaderboard, String table, Instant since, int limit) {
        var names = Map.of("#submitted", SubmissionTable.SUBMITTED_TIME, "#resumed", SubmissionTable.RESUMED_TIME,
                "#end", SubmissionTable.END_TIME, "#status", SubmissionTable.STATUS);
        var values = Map.of(":since", AttributeValue.fromS(since.toString()),
                ":finished", AttributeValue.fromS(SubmissionStatus.FINISHED.name()),
                ":failed", AttributeValue.fromS(SubmissionStatus.FAILED.name()),
                ":cancelled", AttributeValue.fromS(SubmissionStatus.CANCELLED.name()));
        // ISO-8601 instants compare as text; "-" (not yet) sorts before every year.
        String filter = "#submitted >= :since OR #resumed >= :since OR #end >= :since"
                + " OR NOT (#status IN (:finished, :failed, :cancelled))";
        var records = new ArrayList<SubmissionRecord>();
        Map<String, AttributeValue> start = null;
        int read = 0;
        do {
            int pageSize = Math.min(1000, limit - read);
            var request = ScanRequest.builder().tableName(table).filterExpression(filter)
                    .expressionAttributeNames(names).expressionAttributeValues(values).limit(pageSize)
                    .exclusiveStartKey(start).build();
            var response = dynamoDb.scan(request);
            read += response.scannedCount();
            response.items().forEach(item -> records.add(read(leaderboard, item)));
            start = response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty()
                    ? response.lastEvaluatedKey() : null;
        } while (start != null && read < limit);
        return new Page(records, start != null);
    }

    /** One record, read consistently; empty when the table has none. */
    public Optional<SubmissionRecord> find(String leaderboard, String table, String teamId, String submissionId) {
        var key = new HashMap<String, AttributeValue>();
        key.put(SubmissionTable.TEAM_ID, AttributeValue.fromS(teamId));
        key.put(SubmissionTable.SUBMISSION_ID, AttributeValue.fromS(submissionId));
        var item = dynamoDb.getItem(r -> r.tableName(table).key(key).consistentRead(true)).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(read(leaderboard, item));
    }

    /** Whether the table answers. */
    public void describe(String table) {
        dynamoDb.describeTable(r -> r.tableName(table));
    }

    static SubmissionRecord read(String leaderboard, Map<String, AttributeValue> item) {
        String statusText = text(item, SubmissionTable.STATUS);
        return new SubmissionRecord(
                orElse(text(item, SubmissionTable.LEADERBOARD), leaderboard),
                text(item, SubmissionTable.TEAM_ID),
                text(item, SubmissionTable.SUBMISSION_ID),
                text(item, SubmissionTable.TEAM_NAME),
                text(item, SubmissionTable.TRACK_NAME),
                text(item, SubmissionTable.TRACK_ID),
                text(item, SubmissionTable.CHALLENGE_ID),
                SubmissionTable.status(statusText).orElse(null),
                statusText,
                Math.max(1, integer(item, SubmissionTable.RUN, 1)),
                integer(item, SubmissionTable.LAUNCHED_RUN, 0),
                integer(item, SubmissionTable.JOB_ENDED_RUN, 0),
                integer(item, SubmissionTable.RESUMES, 0),
                text(item, SubmissionTable.JOB_NAME),
                text(item, SubmissionTable.INSTANCE_TYPE),
                boxed(item, SubmissionTable.WORKERS),
                time(item, SubmissionTable.SUBMITTED_TIME),
                time(item, SubmissionTable.RESUMED_TIME),
                time(item, SubmissionTable.LAUNCHED_TIME),
                time(item, SubmissionTable.START_TIME),
                time(item, SubmissionTable.END_TIME),
                time(item, SubmissionTable.LAST_PROGRESS_TIME),
                boxed(item, SubmissionTable.ROUTES_DONE),
                boxed(item, SubmissionTable.ROUTES_TOTAL),
                decimal(item, DRIVING_SCORE),
                text(item, SubmissionTable.FAILURE_REASON),
                decimal(item, SubmissionTable.GPU_HOURS),
                Boolean.TRUE.equals(item.containsKey(SubmissionTable.FINAL_SENT)
                        ? item.get(SubmissionTable.FINAL_SENT).bool() : null),
                integer(item, SubmissionTable.CANCEL_REQUESTED_RUN, 0),
                history(item.get(SubmissionTable.HISTORY)),
                RunImages.of(item.get(SubmissionTable.RUN_IMAGES)).orElse(null),
                RunVersions.of(item.get(SubmissionTable.RUN_VERSIONS)).orElse(null),
                integer(item, SubmissionTable.PODS, 1));
    }

    private static List<StatusChange> history(AttributeValue value) {
        if (value == null || !value.hasL()) {
            return List.of();
        }
        var changes = new ArrayList<StatusChange>();
        for (AttributeValue entry : value.l()) {
            if (!entry.hasM()) {
                continue;
            }
            var map = entry.m();
            changes.add(new StatusChange(time(map, SubmissionTable.HISTORY_AT),
                    integer(map, SubmissionTable.HISTORY_RUN, 0), text(map, SubmissionTable.HISTORY_STATUS),
                    text(map, SubmissionTable.HISTORY_BY), text(map, SubmissionTable.HISTORY_DETAIL)));
        }
        return changes;
    }

    /** A string or number attribute as text; {@code null} when absent or {@code "-"}. */
    static String text(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        if (value == null) {
            return null;
        }
        String text = value.s() != null ? value.s() : value.n();
        return text == null || text.equals(SubmissionTable.NOT_YET) ? null : text;
    }

    private static Instant time(Map<String, AttributeValue> item, String name) {
        String text = text(item, name);
        try {
            return text == null ? null : Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static Double decimal(Map<String, AttributeValue> item, String name) {
        String text = text(item, name);
        try {
            return text == null ? null : new BigDecimal(text).doubleValue();
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Integer boxed(Map<String, AttributeValue> item, String name) {
        Double value = decimal(item, name);
        return value == null || value.isNaN() || value.isInfinite() ? null : (int) Math.max(Integer.MIN_VALUE,
                Math.min(Integer.MAX_VALUE, value));
    }

    private static int integer(Map<String, AttributeValue> item, String name, int absent) {
        Integer value = boxed(item, name);
        return value == null ? absent : value;
    }

    private static String orElse(String value, String fallback) {
        return value == null ? fallback : value;
    }
}
