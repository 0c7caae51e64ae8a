package org.carla.leaderboard.localstack.aws;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.localstack.ServiceAccount;
import org.carla.leaderboard.localstack.StackCredentials;
import org.carla.leaderboard.localstack.deploy.Deployment;
import org.carla.leaderboard.localstack.iam.Json;

/**
 * Who may call the stack's AWS servers, and with which keys: every IAM role and user of {@link Deployment} gets an
 * access key of its own (drawn for each stack, as an operator creates a user's keys; a role's stands for the session
 * IRSA would give the ServiceAccounts it trusts), and an administrator (everything allowed, as the account's admin
 * who deploys the template) provisions the stack and plays the operator in tests. No service ever gets the
 * administrator's keys. The servers' IAM gates enforce each principal's policies ({@link #writeGates}).
 */
public final class StackAccess {

    /** The name the administrator's calls are recorded under. */
    public static final String ADMINISTRATOR = "local-stack-administrator";

    private record Principal(String name, String arn, StackCredentials credentials, List<Object> policies,
            Map<String, String> tags) {
    }

    private final Deployment deployment;
    private final Principal administrator;
    private final Map<String, Principal> principals = new LinkedHashMap<>();

    private StackAccess(Deployment deployment) {
        this.deployment = deployment;
        this.administrator = new Principal(ADMINISTRATOR, "arn:aws:iam::" + deployment.account() + ":user/"
                + ADMINISTRATOR, StackCredentials.random(), List.of(Map.of("Version", "2012-10-17", "Statement",
                        List.of(Map.of("Effect", "Allow", "Action", "*", "Resource", "*")))), Map.of());
        for (Deployment.Principal principal : deployment.principals()) {
            principals.put(principal.name(), new Principal(principal.name(), principal.arn(), StackCredentials.random(),
                    principal.policies(), principal.tags()));
        }
    }

    /** Keys for every principal of the deployment; refuses one whose policies the gates could not evaluate. */
    public static StackAccess of(Deployment deployment) {
        var problems = deployment.unsupportedPolicies();
        if (!problems.isEmpty()) {
            throw new IllegalStateException("deploy/aws uses what the local stack's IAM evaluator does not understand, "
                    + "so it cannot enforce it: " + problems);
        }
        return new StackAccess(deployment);
    }

    public Deployment deployment() {
        return deployment;
    }

    /** The administrator's keys: the stack's own provisioning and the tests' operator. */
    public StackCredentials administrator() {
        return administrator.credentials();
    }

    /** The keys of the IAM role that trusts the ServiceAccount (what IRSA gives its pods). */
    public StackCredentials of(ServiceAccount account) {
        var role = deployment.roleOf(account.namespace(), account.name()).orElseThrow(() -> new IllegalArgumentException(
                "no IAM role of deploy/aws/leaderboard-backend.yaml trusts the ServiceAccount " + account
                        + " (system:serviceaccount:" + account.namespace() + ":" + account.name() + ")"));
        return principals.get(role.name()).credentials();
    }

    /** Whether an IAM role trusts the ServiceAccount. */
    public boolean hasRole(ServiceAccount account) {
        return deployment.roleOf(account.namespace(), account.name()).isPresent();
    }

    /** The keys of the template's IAM user of that name (as its operator creates them). */
    public StackCredentials user(String name) {
        var user = deployment.user(name).orElseThrow(() -> new IllegalArgumentException(
                "deploy/aws/leaderboard-backend.yaml has no IAM user " + name));
        return principals.get(user.name()).credentials();
    }

    /**
     * Writes a server's gate configuration (owner-only: every secret is in it): the account, region, decisions file,
     * gates, every principal with its keys and policies, and the resource policies.
     */
    public void writeGates(Path file, Path decisions, List<Map<String, Object>> gates) {
        var identities = new ArrayList<Map<String, Object>>();
        List<Principal> all = new ArrayList<>(principals.values());
        all.add(administrator);
        for (Principal principal : all) {
            var identity = new LinkedHashMap<String, Object>();
            identity.put("name", principal.name());
            identity.put("arn", principal.arn());
            identity.put("accessKeyId", principal.credentials().accessKeyId());
            identity.put("secretAccessKey", principal.credentials().secretAccessKey());
            identity.put("tags", principal.tags());
            identity.put("policies", principal.policies());
            identities.add(identity);
        }
        var config = new LinkedHashMap<String, Object>();
        config.put("account", deployment.account());
        config.put("region", deployment.region());
        config.put("decisions", decisions.toAbsolutePath().toString());
        config.put("gates", gates);
        config.put("identities", identities);
        config.put("resourcePolicies", deployment.resourcePolicies());
        try {
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, Json.write(config), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the IAM gates' configuration " + file, e);
        }
    }

    /** The keys that make a Quarkus client of the service ({@code sqs}, {@code s3}, ...) sign with the credentials. */
    public static Map<String, String> quarkusCredentials(String service, StackCredentials credentials) {
        String prefix = "quarkus." + service + ".aws.credentials.";
        return Map.of(prefix + "type", "static",
                prefix + "static-provider.access-key-id", credentials.accessKeyId(),
                prefix + "static-provider.secret-access-key", credentials.secretAccessKey());
    }

    /** One gate of a server: the service it speaks for, its public port, the server's loopback port behind it. */
    public static Map<String, Object> gate(String service, int port, int serverPort) {
        return Map.of("service", service, "port", port, "backend", serverPort);
    }
}
