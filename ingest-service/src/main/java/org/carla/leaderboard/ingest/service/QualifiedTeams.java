package org.carla.leaderboard.ingest.service;

import static org.carla.leaderboard.domain.record.QualifierTable.TEAM_ID;
import static org.carla.leaderboard.domain.record.QualifierTable.TRACK_CODENAME;

import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.track.TrackCatalog;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The passed qualifiers (results-relay adds a team when it passes a qualifier track): the gate of a gated track. */
@ApplicationScoped
public class QualifiedTeams {

    private final DynamoDbClient dynamo;
    private final String table;

    QualifiedTeams(DynamoDbClient dynamo, TrackCatalog catalog) {
        this.dynamo = dynamo;
        this.table = catalog.qualifierTable();
    }

    /** Whether the team has passed the qualifier that opens this track. A consistent read: a pass just recorded counts. */
    public boolean hasQualified(long teamId, String trackCodename) {
        return dynamo.getItem(r -> r.tableName(table).consistentRead(true)
                .key(Map.of(TEAM_ID, AttributeValue.fromS(Long.toString(teamId)),
                        TRACK_CODENAME, AttributeValue.fromS(trackCodename)))
                .projectionExpression(TEAM_ID))
                .hasItem();
    }
}
