package org.carla.leaderboard.localstack.gate;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.carla.leaderboard.localstack.iam.AccessRequest;
import org.carla.leaderboard.localstack.iam.Json;

/**
 * SQS, in both its protocols: JSON (what the AWS SDK for Java 2.21 and later speaks: {@code X-Amz-Target:
 * AmazonSQS.<Operation>}, the parameters in a JSON body) and the older query protocol ({@code Action=...} form
 * parameters). The action is {@code sqs:<Operation>}, a batch operation's that of its single form; the resource is the
 * queue named by {@code QueueUrl}, or by {@code QueueName} for {@code GetQueueUrl} and {@code CreateQueue}. A refusal
 * is SQS's {@code AccessDenied} (HTTP 403): in the JSON protocol the {@code x-amzn-query-error} header the SDK reads
 * the code from (SQS is query-compatible) and {@code __type}; in the query protocol an {@code ErrorResponse}.
 */
final class SqsProtocol implements ServiceProtocol {

    private static final String TARGET_PREFIX = "AmazonSQS.";
    private static final Map<String, String> BATCHES = Map.of("SendMessageBatch", "SendMessage",
            "DeleteMessageBatch", "DeleteMessage", "ChangeMessageVisibilityBatch", "ChangeMessageVisibility");

    @Override
    public String signingName() {
        return "sqs";
    }

    @Override
    public boolean readsBody(HttpHead head) {
        return true;
    }

    @Override
    public List<AccessRequest> accesses(HttpHead head, byte[] body, Account account) {
        String text = new String(body, StandardCharsets.UTF_8);
        String operation;
        Map<String, String> parameters = new LinkedHashMap<>();
        var target = head.header("X-Amz-Target");
        if (target.isPresent()) {
            if (!target.get().startsWith(TARGET_PREFIX)) {
                throw new IllegalArgumentException("not an SQS operation: " + target.get());
            }
            operation = target.get().substring(TARGET_PREFIX.length());
            if (!text.isBlank()) {
                Json.object(text).forEach((name, value) -> {
                    if (value instanceof String string) {
                        parameters.put(name, string);
                    }
                });
            }
        } else {
            parameters.putAll(head.query());
            parameters.putAll(HttpHead.form(text));
            operation = parameters.get("Action");
            if (operation == null) {
                throw new IllegalArgumentException("an SQS request without an operation");
            }
            if (!parameters.containsKey("QueueUrl") && head.rawPath().length() > 1) {
                parameters.put("QueueUrl", head.rawPath());
            }
        }
        String action = "sqs:" + BATCHES.getOrDefault(operation, operation);
        return List.of(AccessRequest.of(action, resource(operation, parameters, account))
                .with("aws:SecureTransport", "true").with("aws:ResourceAccount", account.id()));
    }

    private static String resource(String operation, Map<String, String> parameters, Account account) {
        String prefix = "arn:aws:sqs:" + account.region() + ":";
        if (operation.equals("ListQueues")) {
            return prefix + account.id() + ":*";
        }
        if (operation.equals("GetQueueUrl") || operation.equals("CreateQueue")) {
            String name = parameters.get("QueueName");
            if (name == null) {
                throw new IllegalArgumentException(operation + " without a QueueName");
            }
            return prefix + parameters.getOrDefault("QueueOwnerAWSAccountId", account.id()) + ":" + name;
        }
        String url = parameters.get("QueueUrl");
        if (url == null) {
            throw new IllegalArgumentException(operation + " without a QueueUrl");
        }
        // http(s)://host/<account>/<queue>, or the path alone in the query protocol's path form
        String path = url.startsWith("/") ? url : URI.create(url).getPath();
        String[] segments = path.replaceAll("^/+", "").split("/");
        if (segments.length != 2) {
            throw new IllegalArgumentException("not a queue URL: " + url);
        }
        return prefix + segments[0] + ":" + segments[1];
    }

    @Override
    public Response refusal(HttpHead head, Refusal refusal, String message) {
        String code = switch (refusal) {
            case ACCESS_DENIED -> "AccessDenied";
            case UNKNOWN_KEY -> "InvalidClientTokenId";
            case SIGNATURE_MISMATCH -> "SignatureDoesNotMatch";
            case NOT_SIGNED -> "MissingAuthenticationToken";
        };
        String requestId = UUID.randomUUID().toString();
        if (head.header("X-Amz-Target").isPresent()) {
            String type = switch (refusal) {
                case ACCESS_DENIED -> "AccessDeniedException";
                case UNKNOWN_KEY -> "UnrecognizedClientException";
                case SIGNATURE_MISMATCH -> "InvalidSignatureException";
                case NOT_SIGNED -> "MissingAuthenticationTokenException";
            };
            return Response.text(403, "Forbidden", "application/x-amz-json-1.0",
                    List.of(Map.entry("x-amzn-RequestId", requestId), Map.entry("x-amzn-query-error", code + ";Sender")),
                    Json.write(Map.of("__type", "com.amazon.coral.service#" + type, "message", message)));
        }
        return Response.text(403, "Forbidden", "text/xml", List.of(Map.entry("x-amzn-RequestId", requestId)),
                "<?xml version=\"1.0\"?><ErrorResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><Error>"
                        + "<Type>Sender</Type><Code>" + code + "</Code><Message>" + Xml.escape(message)
                        + "</Message><Detail/></Error><RequestId>" + requestId + "</RequestId></ErrorResponse>");
    }
}
