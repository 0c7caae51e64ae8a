package org.carla.leaderboard.localstack.gate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.localstack.iam.Authorizer;
import org.carla.leaderboard.localstack.iam.Identity;
import org.carla.leaderboard.localstack.iam.Json;
import org.carla.leaderboard.localstack.iam.Policy;

/**
 * What a server's gates enforce, as the local stack writes it (JSON, owner-only: it holds every principal's secret):
 * the account and region, where decisions are recorded, each gate's service, public port and server port, every
 * principal with its access key, secret and identity-based policies, and the resource-based policies by ARN. Refuses
 * a policy the evaluator does not understand.
 *
 * <pre>{"account": "...", "region": "...", "decisions": "/path/access.log",
 *  "gates": [{"service": "sqs", "port": 9324, "backend": 40123}],
 *  "identities": [{"name": "...", "arn": "...", "accessKeyId": "...", "secretAccessKey": "...", "tags": {},
 *                  "policies": [{"Statement": [...]}]}],
 *  "resourcePolicies": {"arn:aws:s3:::bucket": {"Statement": [...]}}}</pre>
 */
record GateConfig(ServiceProtocol.Account account, Path decisions, List<Gate> gates, Map<String, Identity> identities,
        Map<String, String> secrets, Authorizer authorizer) {

    /** One gate: the service it speaks for, the port it listens on, the server's port behind it. */
    record Gate(String service, int port, int backend) {
    }

    @SuppressWarnings("unchecked")
    static GateConfig read(Path file) throws IOException {
        Map<String, Object> config = Json.object(Files.readString(file, StandardCharsets.UTF_8));
        var problems = new ArrayList<String>();
        var identities = new LinkedHashMap<String, Identity>();
        var secrets = new LinkedHashMap<String, String>();
        String accountId = (String) config.get("account");
        for (Object entry : (List<Object>) config.get("identities")) {
            var identity = (Map<String, Object>) entry;
            var policies = new ArrayList<Policy>();
            for (Object document : (List<Object>) identity.get("policies")) {
                Policy policy = Policy.of(document);
                policy.unsupported().forEach(problem -> problems.add(identity.get("name") + ": " + problem));
                policies.add(policy);
            }
            String key = (String) identity.get("accessKeyId");
            var tags = new LinkedHashMap<String, String>();
            ((Map<String, Object>) identity.getOrDefault("tags", Map.of())).forEach((k, v) -> tags.put(k, (String) v));
            identities.put(key, new Identity((String) identity.get("name"), (String) identity.get("arn"), accountId,
                    tags, policies));
            secrets.put(key, (String) identity.get("secretAccessKey"));
        }
        var resourcePolicies = new LinkedHashMap<String, Policy>();
        ((Map<String, Object>) config.getOrDefault("resourcePolicies", Map.of())).forEach((arn, document) -> {
            Policy policy = Policy.of(document);
            policy.unsupported().forEach(problem -> problems.add(arn + ": " + problem));
            resourcePolicies.put(arn, policy);
        });
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the local IAM gate does not understand these policies, so it cannot "
                    + "enforce them: " + problems);
        }
        var gates = new ArrayList<Gate>();
        for (Object entry : (List<Object>) config.get("gates")) {
            var gate = (Map<String, Object>) entry;
            gates.add(new Gate((String) gate.get("service"), ((Number) gate.get("port")).intValue(),
                    ((Number) gate.get("backend")).intValue()));
        }
        return new GateConfig(new ServiceProtocol.Account((String) config.get("region"), accountId),
                Path.of((String) config.get("decisions")), gates, identities, secrets,
                new Authorizer(resourcePolicies));
    }

    static ServiceProtocol protocol(String service) {
        return switch (service) {
            case "sqs" -> new SqsProtocol();
            case "dynamodb" -> new DynamoDbProtocol();
            case "s3" -> new S3Protocol();
            case "cloudwatch" -> new CloudWatchProtocol();
            default -> throw new IllegalArgumentException("no gate speaks for " + service);
        };
    }
}
