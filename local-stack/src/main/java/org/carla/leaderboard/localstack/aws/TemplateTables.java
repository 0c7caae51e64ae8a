package org.carla.leaderboard.localstack.aws;

import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.list;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.map;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.carla.leaderboard.localstack.deploy.Deployment;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.LocalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughput;

/**
 * An {@code AWS::DynamoDB::Table} of the template created through DynamoDB's own API, as CloudFormation creates it:
 * name, attributes, keys, billing mode and throughput, global and local secondary indexes with their keys and
 * projections, and its time-to-live attribute. What DynamoDB Local has no use for (encryption at rest, point-in-time
 * recovery, deletion protection, tags, contributor insights, the table class) is not applied; any other property
 * refuses the stack's start, so a table the template changes never passes here unmodelled.
 */
final class TemplateTables {

    private static final Set<String> APPLIED = Set.of("TableName", "AttributeDefinitions", "KeySchema", "BillingMode",
            "ProvisionedThroughput", "GlobalSecondaryIndexes", "LocalSecondaryIndexes", "TimeToLiveSpecification");
    private static final Set<String> NOT_MODELLED = Set.of("SSESpecification", "PointInTimeRecoverySpecification",
            "DeletionProtectionEnabled", "Tags", "ContributorInsightsSpecification", "TableClass");

    private TemplateTables() {
    }

    static void create(DynamoDbClient client, Deployment.Table table) {
        Map<String, Object> properties = table.properties();
        properties.keySet().stream().filter(key -> !APPLIED.contains(key) && !NOT_MODELLED.contains(key)).findFirst()
                .ifPresent(key -> {
                    throw new IllegalStateException("deploy/aws gives the table " + table.name() + " the property "
                            + key + ", which the local stack does not model");
                });
        client.createTable(request(table.name(), properties));
        if (properties.get("TimeToLiveSpecification") instanceof Map<?, ?> ttl
                && Boolean.parseBoolean(String.valueOf(ttl.get("Enabled")))) {
            client.updateTimeToLive(r -> r.tableName(table.name()).timeToLiveSpecification(
                    t -> t.enabled(true).attributeName(String.valueOf(ttl.get("AttributeName")))));
        }
    }

    static CreateTableRequest request(String name, Map<String, Object> properties) {
        var request = CreateTableRequest.builder().tableName(name)
                .attributeDefinitions(list(properties.get("AttributeDefinitions")).stream()
                        .map(a -> AttributeDefinition.builder().attributeName(text(a, "AttributeName"))
                                .attributeType(text(a, "AttributeType")).build())
                        .toList())
                .keySchema(keys(properties.get("KeySchema")))
                .billingMode(String.valueOf(properties.getOrDefault("BillingMode", "PROVISIONED")));
        if (properties.containsKey("ProvisionedThroughput")) {
            request.provisionedThroughput(throughput(properties.get("ProvisionedThroughput")));
        }
        if (properties.containsKey("GlobalSecondaryIndexes")) {
            request.globalSecondaryIndexes(list(properties.get("GlobalSecondaryIndexes")).stream()
                    .map(index -> {
                        var gsi = GlobalSecondaryIndex.builder().indexName(text(index, "IndexName"))
                                .keySchema(keys(map(index).get("KeySchema")))
                                .projection(projection(map(index).get("Projection")));
                        if (map(index).containsKey("ProvisionedThroughput")) {
                            gsi.provisionedThroughput(throughput(map(index).get("ProvisionedThroughput")));
                        }
                        return gsi.build();
                    }).toList());
        }
        if (properties.containsKey("LocalSecondaryIndexes")) {
            request.localSecondaryIndexes(list(properties.get("LocalSecondaryIndexes")).stream()
                    .map(index -> LocalSecondaryIndex.builder().indexName(text(index, "IndexName"))
                            .keySchema(keys(map(index).get("KeySchema")))
                            .projection(projection(map(index).get("Projection"))).build())
                    .toList());
        }
        return request.build();
    }

    private static List<KeySchemaElement> keys(Object schema) {
        return list(schema).stream().map(k -> KeySchemaElement.builder().attributeName(text(k, "AttributeName"))
                .keyType(text(k, "KeyType")).build()).toList();
    }

    private static Projection projection(Object projection) {
        var builder = Projection.builder().projectionType(text(projection, "ProjectionType"));
        Object nonKey = map(projection).get("NonKeyAttributes");
        if (nonKey != null) {
            builder.nonKeyAttributes(list(nonKey).stream().map(String::valueOf).toList());
        }
        return builder.build();
    }

    private static ProvisionedThroughput throughput(Object throughput) {
        return ProvisionedThroughput.builder()
                .readCapacityUnits(Long.parseLong(text(throughput, "ReadCapacityUnits")))
                .writeCapacityUnits(Long.parseLong(text(throughput, "WriteCapacityUnits"))).build();
    }

    private static String text(Object node, String key) {
        Object value = map(node).get(key);
        if (value == null) {
            throw new IllegalStateException("a table property lacks " + key + ": " + node);
        }
        return String.valueOf(value);
    }
}
