package org.carla.leaderboard.relay.store;

import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.record.QualifierTable;
import org.carla.leaderboard.domain.track.TrackCatalog;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/** The qualifier table ({@link QualifierTable}): which team may submit to which track. */
@ApplicationScoped
public class Qualifiers {

    private final DynamoDbClient dynamoDb;
    private final TrackCatalog catalog;

    Qualifiers(DynamoDbClient dynamoDb, TrackCatalog catalog) {
        this.dynamoDb = dynamoDb;
        this.catalog = catalog;
    }

    /** Lets the team submit to the track; the first qualifying submission stays on record. */
    public void admit(long teamId, String trackCodename, String submissionId) {
        try {
            dynamoDb.putItem(r -> r.tableName(catalog.qualifierTable())
                    .item(Map.of(QualifierTable.TEAM_ID, AttributeValue.fromS(Long.toString(teamId)),
                            QualifierTable.TRACK_CODENAME, AttributeValue.fromS(trackCodename),
                            QualifierTable.SUBMISSION_ID, AttributeValue.fromS(submissionId)))
                    .conditionExpression("attribute_not_exists(#team)")
                    .expressionAttributeNames(Map.of("#team", QualifierTable.TEAM_ID)));
        } catch (ConditionalCheckFailedException e) {
            // Already qualified (an earlier submission, or this event again): nothing to change.
        }
    }
}
