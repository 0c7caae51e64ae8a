package org.carla.leaderboard.ingest.service;

import static org.carla.leaderboard.domain.record.SubmissionTable.CHALLENGE_ID;
import static org.carla.leaderboard.domain.record.SubmissionTable.HISTORY;
import static org.carla.leaderboard.domain.record.SubmissionTable.HISTORY_AT;
import static org.carla.leaderboard.domain.record.SubmissionTable.IMAGE_URI;
import static org.carla.leaderboard.domain.record.SubmissionTable.LAUNCHED_RUN;
import static org.carla.leaderboard.domain.record.SubmissionTable.LAUNCH_REQUESTED_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.NOT_YET;
import static org.carla.leaderboard.domain.record.SubmissionTable.RUN;
import static org.carla.leaderboard.domain.record.SubmissionTable.STATUS;
import static org.carla.leaderboard.domain.record.SubmissionTable.SUBMISSION_ID;
import static org.carla.leaderboard.domain.record.SubmissionTable.SUBMITTED_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.TEAM_ID;
import static org.carla.leaderboard.domain.record.SubmissionTable.TRACK_ID;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.status.SubmissionStatus;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The records the stuck rule {@code unlaunched} looks at: SUBMITTED and their current run not claimed by job-launcher.
 * A Query of the table's index by status ({@link SubmissionTable#STATUS_INDEX}, all attributes projected) for
 * SUBMITTED, filtered on the claim: it reads the SUBMITTED records only, whatever the table's size.
 */
@ApplicationScoped
public class UnclaimedRecords {

    private static final Map<String, String> NAMES = Map.of("#status", STATUS, "#run", RUN, "#launched",
            LAUNCHED_RUN, "#team", TEAM_ID, "#id", SUBMISSION_ID, "#challenge", CHALLENGE_ID, "#phase", TRACK_ID,
            "#image", IMAGE_URI, "#history", HISTORY, "#requested", LAUNCH_REQUESTED_TIME);

    private final DynamoDbClient dynamo;

    UnclaimedRecords(DynamoDbClient dynamo) {
        this.dynamo = dynamo;
    }

    /**
     * A SUBMITTED record whose run job-launcher has not claimed.
     *
     * @param statusSince       when it became SUBMITTED (its last history entry; else its submission time)
     * @param launchRequestedAt when the rule last published its launch request again; {@code null} when never
     * @param imageUri          {@code null} when the record has none (a submission that was not to be launched)
     */
    public record Unclaimed(String teamId, String submissionId, int run, int launchedRun, long challengePk,
            long phasePk, String imageUri, Instant statusSince, Instant launchRequestedAt) {
    }

    /** Every unclaimed SUBMITTED record of the table (an index is eventually consistent; page by page). */
    public List<Unclaimed> find(String table) {
        var names = new java.util.HashMap<>(NAMES);
        names.put("#submitted_time", SUBMITTED_TIME);
        var found = new ArrayList<Unclaimed>();
        for (var page : dynamo.queryPaginator(r -> r.tableName(table).indexName(SubmissionTable.STATUS_INDEX)
                .keyConditionExpression("#status = :submitted")
                .filterExpression("attribute_not_exists(#launched) OR NOT attribute_type(#launched, :number)"
                        + " OR #launched <> #run")
                .projectionExpression("#team, #id, #run, #launched, #challenge, #phase, #image, #history, #requested, "
                        + "#submitted_time")
                .expressionAttributeNames(names)
                .expressionAttributeValues(Map.of(":submitted", AttributeValue.fromS(SubmissionStatus.SUBMITTED.name()),
                        ":number", AttributeValue.fromS("N"))))) {
            for (var item : page.items()) {
                try {
                    found.add(read(item));
                } catch (RuntimeException e) {
                    // A record this code cannot read (hand-edited, foreign): nothing to mend from it.
                }
            }
        }
        return found;
    }

    /**
     * Notes that the run's launch request was published again now, so the rule waits a whole bound before the next
     * one; only while the record is still SUBMITTED in that run. False when it moved on meanwhile.
     */
    public boolean noteLaunchRequested(String table, Unclaimed record, Instant now) {
        try {
            dynamo.updateItem(r -> r.tableName(table)
                    .key(Map.of(TEAM_ID, AttributeValue.fromS(record.teamId()),
                            SUBMISSION_ID, AttributeValue.fromS(record.submissionId())))
                    .updateExpression("SET #requested = :now")
                    .conditionExpression("#run = :run AND #status = :submitted")
                    .expressionAttributeNames(Map.of("#requested", LAUNCH_REQUESTED_TIME, "#run", RUN, "#status",
                            STATUS))
                    .expressionAttributeValues(Map.of(":now", AttributeValue.fromS(now.toString()),
                            ":run", AttributeValue.fromN(Integer.toString(record.run())),
                            ":submitted", AttributeValue.fromS(SubmissionStatus.SUBMITTED.name()))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    private static Unclaimed read(Map<String, AttributeValue> item) {
        String image = text(item, IMAGE_URI);
        Instant since = null;
        var history = item.get(HISTORY);
        if (history != null && history.hasL() && !history.l().isEmpty()) {
            since = time(history.l().get(history.l().size() - 1).m().get(HISTORY_AT));
        }
        if (since == null) {
            since = time(item.get(SUBMITTED_TIME));
        }
        return new Unclaimed(text(item, TEAM_ID), text(item, SUBMISSION_ID), number(item, RUN, 1),
                number(item, LAUNCHED_RUN, 0), Long.parseLong(text(item, CHALLENGE_ID)),
                Long.parseLong(text(item, TRACK_ID)), image == null || image.equals(NOT_YET) ? null : image, since,
                time(item.get(LAUNCH_REQUESTED_TIME)));
    }

    private static String text(Map<String, AttributeValue> item, String attribute) {
        var value = item.get(attribute);
        return value == null ? null : value.s();
    }

    private static int number(Map<String, AttributeValue> item, String attribute, int otherwise) {
        var value = item.get(attribute);
        return value == null || value.n() == null ? otherwise : Integer.parseInt(value.n());
    }

    private static Instant time(AttributeValue value) {
        if (value == null || value.s() == null) {
            return null;
        }
        try {
            return Instant.parse(value.s());
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
