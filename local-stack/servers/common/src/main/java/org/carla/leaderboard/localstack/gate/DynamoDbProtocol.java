package org.carla.leaderboard.localstack.gate;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.carla.leaderboard.localstack.iam.AccessRequest;
import org.carla.leaderboard.localstack.iam.Json;

/**
 * DynamoDB: {@code X-Amz-Target: DynamoDB_20120810.<Operation>} and a JSON body. The action is
 * {@code dynamodb:<Operation>} on {@code table/<TableName>}, or on {@code table/<TableName>/index/<IndexName>} for a
 * Query or Scan of an index; a batch asks for its action on every table it names, a transaction for each item's own
 * action ({@code PutItem}, {@code UpdateItem}, {@code DeleteItem}, {@code ConditionCheckItem}, {@code GetItem}). A
 * refusal is DynamoDB's {@code AccessDeniedException} (HTTP 400, JSON {@code __type}).
 */
final class DynamoDbProtocol implements ServiceProtocol {

    private static final String TARGET_PREFIX = "DynamoDB_20120810.";
    private static final Set<String> ACCOUNT_WIDE = Set.of("ListTables", "DescribeLimits", "DescribeEndpoints",
            "ListBackups", "ListGlobalTables", "ListExports", "ListImports");
    private static final Map<String, String> TRANSACTION_ITEMS = Map.of("Put", "PutItem", "Update", "UpdateItem",
            "Delete", "DeleteItem", "ConditionCheck", "ConditionCheckItem", "Get", "GetItem");

    @Override
    public String signingName() {
        return "dynamodb";
    }

    @Override
    public boolean readsBody(HttpHead head) {
        return true;
    }

    @Override
    @SuppressWarnings("unchecked")
    public List<AccessRequest> accesses(HttpHead head, byte[] body, Account account) {
        String target = head.header("X-Amz-Target")
                .orElseThrow(() -> new IllegalArgumentException("a DynamoDB request without X-Amz-Target"));
        if (!target.startsWith(TARGET_PREFIX)) {
            throw new IllegalArgumentException("not a DynamoDB operation: " + target);
        }
        String operation = target.substring(TARGET_PREFIX.length());
        String text = new String(body, StandardCharsets.UTF_8);
        Map<String, Object> request = text.isBlank() ? Map.of() : Json.object(text);
        String tablePrefix = "arn:aws:dynamodb:" + account.region() + ":" + account.id() + ":table/";
        var accesses = new ArrayList<AccessRequest>();
        if (ACCOUNT_WIDE.contains(operation)) {
            accesses.add(AccessRequest.of("dynamodb:" + operation, "*"));
        } else if (operation.equals("BatchGetItem") || operation.equals("BatchWriteItem")) {
            ((Map<String, Object>) request.getOrDefault("RequestItems", Map.of())).keySet()
                    .forEach(table -> accesses.add(AccessRequest.of("dynamodb:" + operation, tablePrefix + table)));
        } else if (operation.equals("TransactWriteItems") || operation.equals("TransactGetItems")) {
            for (Object item : (List<Object>) request.getOrDefault("TransactItems", List.of())) {
                ((Map<String, Object>) item).forEach((kind, details) -> accesses.add(AccessRequest.of(
                        "dynamodb:" + TRANSACTION_ITEMS.getOrDefault(kind, kind),
                        tablePrefix + ((Map<String, Object>) details).get("TableName"))));
            }
        } else {
            Object table = request.get("TableName");
            if (!(table instanceof String name)) {
                throw new IllegalArgumentException(operation + " without a TableName");
            }
            Object index = request.get("IndexName");
            accesses.add(AccessRequest.of("dynamodb:" + operation, tablePrefix + name
                    + (index instanceof String indexName ? "/index/" + indexName : "")));
        }
        if (accesses.isEmpty()) {
            throw new IllegalArgumentException(operation + " names no table");
        }
        return accesses.stream().map(access -> access.with("aws:SecureTransport", "true")
                .with("aws:ResourceAccount", account.id())).toList();
    }

    @Override
    public Response refusal(HttpHead head, Refusal refusal, String message) {
        String type = switch (refusal) {
            case ACCESS_DENIED -> "com.amazonaws.dynamodb.v20120810#AccessDeniedException";
            case UNKNOWN_KEY -> "com.amazon.coral.service#UnrecognizedClientException";
            case SIGNATURE_MISMATCH -> "com.amazon.coral.service#InvalidSignatureException";
            case NOT_SIGNED -> "com.amazon.coral.service#MissingAuthenticationTokenException";
        };
        return Response.text(400, "Bad Request", "application/x-amz-json-1.0",
                List.of(Map.entry("x-amzn-RequestId", UUID.randomUUID().toString())),
                Json.write(Map.of("__type", type, "message", message)));
    }
}
