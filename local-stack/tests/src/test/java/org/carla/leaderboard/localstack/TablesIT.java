package org.carla.leaderboard.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;

/** DynamoDB Local through the AWS SDK: the tables of deploy/aws and nothing else, conditional writes, the index. */
class TablesIT {

    static RunningStack stack;

    @BeforeAll
    static void start() {
        stack = LocalStack.builder().components("dynamodb").start();
    }

    @AfterAll
    static void stop() {
        stack.close();
    }

    @Test
    void theTemplatesTablesAreCreatedWithTheirKeysIndexesAndBilling() {
        assertThat(stack.dynamoDb().listTables().tableNames())
                .containsExactlyInAnyOrder("leaderboard-10", "leaderboard-20", "leaderboard-qualifiers", "route-ledger");
        for (String name : List.of("leaderboard-10", "leaderboard-20")) {
            var table = stack.dynamoDb().describeTable(r -> r.tableName(name)).table();
            assertThat(table.keySchema()).containsExactly(key("team_id", KeyType.HASH),
                    key("submission_id", KeyType.RANGE));
            assertThat(table.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
            assertThat(table.globalSecondaryIndexes()).singleElement().satisfies(index -> {
                assertThat(index.indexName()).isEqualTo("submission_status-index");
                assertThat(index.keySchema()).containsExactly(key("submission_status", KeyType.HASH),
                        key("submission_id", KeyType.RANGE));
                assertThat(index.projection().projectionType()).isEqualTo(ProjectionType.ALL);
            });
        }
        var qualifiers = stack.dynamoDb().describeTable(r -> r.tableName("leaderboard-qualifiers")).table();
        assertThat(qualifiers.keySchema()).containsExactly(key("team_id", KeyType.HASH),
                key("track_codename", KeyType.RANGE));
        assertThat(qualifiers.globalSecondaryIndexes()).isEmpty();
        var ledger = stack.dynamoDb().describeTable(r -> r.tableName("route-ledger")).table();
        assertThat(ledger.keySchema()).containsExactly(key("ledger", KeyType.HASH), key("entry", KeyType.RANGE));
        assertThat(ledger.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
        assertThat(stack.quarkusConfig()).containsEntry("evaluation.leaderboards.leaderboard-20.submissions-table",
                "leaderboard-20").containsKey("quarkus.dynamodb.endpoint-override");
    }

    @Test
    void aLeaderboardWhoseTableOrBucketDeployLacksRefusesTheStack() {
        assertThatThrownBy(() -> LocalStack.builder().components("dynamodb")
                .evaluation(Map.of(
                        "evaluation.leaderboards.leaderboard-30.bucket", "carla-leaderboard-30",
                        "evaluation.leaderboards.leaderboard-30.submissions-table", "leaderboard-30-submissions",
                        "evaluation.leaderboards.leaderboard-30.simulator-image", "carla:0.9.16",
                        "evaluation.leaderboards.leaderboard-30.leaderboard-image", "leaderboard-30:latest",
                        "evaluation.leaderboards.leaderboard-30.renderer", "vulkan",
                        "evaluation.leaderboards.leaderboard-30.version", "2.0"))
                .start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table leaderboard-30-submissions").hasMessageContaining("bucket carla-leaderboard-30");
    }

    @Test
    void aSecondPutOfTheSameSubmissionIsRefusedByItsCondition() {
        var first = Map.of(
                "team_id", AttributeValue.fromS("team-7"),
                "submission_id", AttributeValue.fromS("sub-1"),
                "status", AttributeValue.fromS("SUBMITTED"));
        stack.dynamoDb().putItem(r -> r.tableName("leaderboard-10").item(first)
                .conditionExpression("attribute_not_exists(submission_id)"));

        var second = Map.of(
                "team_id", AttributeValue.fromS("team-7"),
                "submission_id", AttributeValue.fromS("sub-1"),
                "status", AttributeValue.fromS("RUNNING"));
        assertThatThrownBy(() -> stack.dynamoDb().putItem(r -> r.tableName("leaderboard-10").item(second)
                .conditionExpression("attribute_not_exists(submission_id)")))
                .isInstanceOf(ConditionalCheckFailedException.class);

        var stored = stack.dynamoDb().getItem(r -> r.tableName("leaderboard-10").consistentRead(true)
                .key(Map.of("team_id", AttributeValue.fromS("team-7"), "submission_id", AttributeValue.fromS("sub-1"))))
                .item();
        assertThat(stored.get("status").s()).isEqualTo("SUBMITTED");
    }

    @Test
    void theRecordsOfAStatusAreFoundThroughTheIndexByStatus() {
        for (String[] record : new String[][] { { "sub-2", "RUNNING" }, { "sub-3", "FINISHED" }, { "sub-4", "RUNNING" } }) {
            stack.dynamoDb().putItem(r -> r.tableName("leaderboard-20").item(Map.of(
                    "team_id", AttributeValue.fromS("team-8"),
                    "submission_id", AttributeValue.fromS(record[0]),
                    "submission_status", AttributeValue.fromS(record[1]),
                    "run", AttributeValue.fromN("1"))));
        }

        var running = stack.dynamoDb().query(r -> r.tableName("leaderboard-20").indexName("submission_status-index")
                .keyConditionExpression("submission_status = :status")
                .expressionAttributeValues(Map.of(":status", AttributeValue.fromS("RUNNING")))).items();

        assertThat(running).extracting(item -> item.get("submission_id").s()).containsExactly("sub-2", "sub-4");
        assertThat(running).allSatisfy(item -> assertThat(item).containsKey("run"));
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }
}
