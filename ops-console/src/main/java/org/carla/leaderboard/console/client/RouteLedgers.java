package org.carla.leaderboard.console.client;

import static org.carla.leaderboard.domain.ledger.RouteLedgerTable.ENTRY;
import static org.carla.leaderboard.domain.ledger.RouteLedgerTable.LEDGER;
import static org.carla.leaderboard.domain.ledger.RouteLedgerTable.RUN_ENTRY;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.ledger.LedgerItems;
import org.carla.leaderboard.domain.ledger.RouteLedgerTable;
import org.carla.leaderboard.domain.track.EvaluationConfig;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * The route ledger of a run whose routes were claimed, read only ({@code dynamodb:Query} on the table, deploy/aws's
 * {@code ReadRouteLedger}): every entry with its attempts, for the ops page's timeline of routes per pair. The route
 * records themselves are left in the table (the merged results in S3 hold them).
 */
@ApplicationScoped
public class RouteLedgers {

    private final DynamoDbClient dynamoDb;
    private final String table;

    RouteLedgers(DynamoDbClient dynamoDb, EvaluationConfig evaluation) {
        this.dynamoDb = dynamoDb;
        this.table = evaluation.routeLedgerTable();
    }

    /** The entries of the run's ledger, by entry key; empty when it has none (yet). */
    public List<LedgerEntry> entries(String leaderboard, String submissionId, int run) {
        String partition = RouteLedgerTable.ledgerPartition(leaderboard, submissionId, run);
        // Every attribute but the record: the timeline needs the attempts, not what a route scored.
        var names = new HashMap<String, String>(Map.of("#l", LEDGER));
        var projected = new ArrayList<String>();
        for (String attribute : List.of(ENTRY, RouteLedgerTable.VERSION, RouteLedgerTable.STATE, RouteLedgerTable.TOWN,
                RouteLedgerTable.LENGTH_M, RouteLedgerTable.EXPECTED_S, RouteLedgerTable.TRIES,
                RouteLedgerTable.INFRA_TRIES, RouteLedgerTable.CLAIM, RouteLedgerTable.ATTEMPTS,
                RouteLedgerTable.SENSORS)) {
            String placeholder = "#a" + projected.size();
            names.put(placeholder, attribute);
            projected.add(placeholder);
        }
        var request = QueryRequest.builder().tableName(table).keyConditionExpression("#l = :l")
                .projectionExpression(String.join(", ", projected)).expressionAttributeNames(names)
                .expressionAttributeValues(Map.of(":l", AttributeValue.fromS(partition))).build();
        var entries = new ArrayList<LedgerEntry>();
        for (Map<String, AttributeValue> item : dynamoDb.queryPaginator(request).items()) {
            if (!RUN_ENTRY.equals(item.get(ENTRY).s())) {
                entries.add(LedgerItems.entry(item).value());
            }
        }
        return entries;
    }
}
