package org.carla.leaderboard.relay.store;

import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.track.TrackCatalog;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/** The qualifier table (key {@code team_id} + {@code track_codename}): which team may submit to which track. */
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
                    .item(Map.of("team_id", AttributeValue.fromS(Long.toString(teamId)),
                            "track_codename", AttributeValue.fromS(trackCodename),
                            "submission_id", AttributeValue.fromS(submissionId)))
                    .conditionExpression("attribute_not_exists(team_id)"));
        } catch (ConditionalCheckFailedException e) {
            // Already qualified (an earlier submission, or this event again): nothing to change.
        }
    }
}
