package org.carla.leaderboard.localstack.run;

import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.ledger.LedgerItems;
import org.carla.leaderboard.domain.ledger.RouteLedgerTable;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** A run's route ledger as an operator reads it: every entry, without the run's own item. */
final class RunLedger {

    private RunLedger() {
    }

    static List<LedgerEntry> entries(DynamoDbClient dynamoDb, String table, String leaderboard, String submissionId,
            int run) {
        String partition = RouteLedgerTable.ledgerPartition(leaderboard, submissionId, run);
        return dynamoDb.queryPaginator(r -> r.tableName(table).consistentRead(true).keyConditionExpression("#l = :l")
                .expressionAttributeNames(Map.of("#l", RouteLedgerTable.LEDGER))
                .expressionAttributeValues(Map.of(":l", AttributeValue.fromS(partition)))).items().stream()
                .filter(item -> !RouteLedgerTable.RUN_ENTRY.equals(item.get(RouteLedgerTable.ENTRY).s()))
                .map(item -> LedgerItems.entry(item).value()).toList();
    }
}
