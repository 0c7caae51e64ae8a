package org.carla.leaderboard.localstack.deploy;

import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.list;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.map;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

import org.carla.leaderboard.localstack.iam.Json;
import org.carla.leaderboard.localstack.iam.Policy;
import org.yaml.snakeyaml.Yaml;

/**
 * What operators deploy, as one account holds it: {@code deploy/aws/leaderboard-backend.yaml} evaluated for an
 * account and region (its tables, buckets, IAM roles and users with their policies and trust, bucket and queue
 * policies, outputs), and the storage names of the services' ConfigMap {@code deploy/services/leaderboard-config.yml}
 * (which bucket and table each leaderboard uses), rendered as {@code deploy/render.sh} renders them. The local stack
 * is built from it: it has no table, bucket or permission of its own.
 */
public final class Deployment {

    /** Where the build puts the services' ConfigMap in local-stack's jar (see its pom). */
    public static final String SERVICES_CONFIG = "deploy/services/leaderboard-config.yml";
    /** The template parameter naming the cluster's OIDC issuer, which every IRSA role trusts. */
    public static final String OIDC_PARAMETER = "OidcProviderUrl";
    /** The storage keys of the ConfigMap: a leaderboard's bucket and table, the qualifier and route ledger tables. */
    private static final String STORAGE_KEYS = "evaluation\\.(qualifier-table|route-ledger-table|leaderboards\\.[^.]+\\.(bucket|submissions-table))";
    private static final String WEB_IDENTITY = "sts:AssumeRoleWithWebIdentity";
    private static final String SERVICE_ACCOUNT = "system:serviceaccount:";

    /** A DynamoDB table: its name and its properties as the template evaluates them. */
    public record Table(String logicalId, String name, Map<String, Object> properties) {
    }

    /**
     * An IAM role or user: its name and ARN, its identity-based policy documents (inline, and the AWS::IAM::Policy
     * resources attached to it), its tags, and for a role the Kubernetes ServiceAccounts ({@code namespace:name})
     * its trust lets in through the cluster's OIDC issuer.
     */
    public record Principal(String logicalId, String name, String arn, boolean user, List<Object> policies,
            Map<String, String> tags, Set<String> serviceAccounts) {

        public Principal {
            policies = List.copyOf(policies);
            tags = Map.copyOf(tags);
            serviceAccounts = Set.copyOf(serviceAccounts);
        }
    }

    private final TemplateEvaluation stack;
    private final List<Table> tables = new ArrayList<>();
    private final List<String> buckets = new ArrayList<>();
    private final List<String> queues = new ArrayList<>();
    private final List<Principal> principals = new ArrayList<>();
    private final Map<String, Object> resourcePolicies = new LinkedHashMap<>();
    private final Map<String, String> storage = new LinkedHashMap<>();

    private Deployment(TemplateEvaluation stack, Properties servicesConfig) {
        this.stack = stack;
        stack.ofType("AWS::DynamoDB::Table").forEach(id -> tables.add(new Table(id, stack.physicalName(id),
                stack.properties(id))));
        stack.ofType("AWS::S3::Bucket").forEach(id -> buckets.add(stack.physicalName(id)));
        stack.ofType("AWS::SQS::Queue").forEach(id -> queues.add(stack.physicalName(id)));
        readPrincipals();
        readResourcePolicies();
        servicesConfig.stringPropertyNames().stream().filter(key -> key.matches(STORAGE_KEYS)).sorted()
                .forEach(key -> storage.put(key, servicesConfig.getProperty(key).trim()
                        .replace("ACCOUNT_ID", stack.account()).replace("REGION", stack.region())));
    }

    /**
     * The packaged {@code deploy/} files evaluated for the local stack's account and region. The cluster's OIDC
     * issuer is a local one; every other parameter takes its default, as {@code deploy/README.md}'s step 3 leaves it.
     */
    public static Deployment local(String account, String region) {
        var template = CloudFormationTemplate.packaged(CloudFormationTemplate.BACKEND);
        var parameters = Map.of(OIDC_PARAMETER, localIssuer(region));
        return of(template, servicesConfig(), account, region, parameters);
    }

    public static Deployment of(CloudFormationTemplate backend, Properties servicesConfig, String account,
            String region, Map<String, String> parameters) {
        return new Deployment(new TemplateEvaluation(backend, "carla-leaderboard", account, region, parameters),
                servicesConfig);
    }

    /** The OIDC issuer of the local cluster, in the form EKS gives (the template's parameter insists on it). */
    public static String localIssuer(String region) {
        return "oidc.eks." + region + ".amazonaws.com/id/LOCALSTACK";
    }

    /** The {@code application.properties} of the packaged ConfigMap. */
    public static Properties servicesConfig() {
        try (InputStream in = Deployment.class.getClassLoader().getResourceAsStream(SERVICES_CONFIG)) {
            if (in == null) {
                throw new IllegalStateException(SERVICES_CONFIG + " is not on the class path: local-stack's build "
                        + "packages it (./mvnw -B -pl local-stack -am package)");
            }
            return configMapProperties(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + SERVICES_CONFIG, e);
        }
    }

    /** The {@code application.properties} key of a ConfigMap's YAML, as properties. */
    public static Properties configMapProperties(String yaml) {
        Map<String, Object> configMap = map(new Yaml().load(yaml));
        var properties = new Properties();
        try {
            properties.load(new StringReader(String.valueOf(map(configMap.get("data")).get("application.properties"))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }

    private void readPrincipals() {
        Map<String, List<Object>> attached = new LinkedHashMap<>();
        for (String type : List.of("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")) {
            for (String id : stack.ofType(type)) {
                Map<String, Object> properties = stack.properties(id);
                for (String list : List.of("Roles", "Users")) {
                    for (Object name : list(properties.getOrDefault(list, List.of()))) {
                        attached.computeIfAbsent(list + "/" + name, k -> new ArrayList<>())
                                .add(document(properties.get("PolicyDocument")));
                    }
                }
                if (properties.containsKey("Groups")) {
                    throw new IllegalStateException(id + " is attached to IAM groups, which the local stack does not"
                            + " model");
                }
            }
        }
        for (String type : List.of("AWS::IAM::Role", "AWS::IAM::User")) {
            boolean user = type.equals("AWS::IAM::User");
            for (String id : stack.ofType(type)) {
                Map<String, Object> properties = stack.properties(id);
                if (properties.containsKey("ManagedPolicyArns") || properties.containsKey("PermissionsBoundary")
                        || properties.containsKey("Groups")) {
                    throw new IllegalStateException(id + " has managed policies, a permissions boundary or groups,"
                            + " which the local stack does not know the content of: it cannot enforce them");
                }
                String name = stack.physicalName(id);
                var policies = new ArrayList<Object>();
                for (Object inline : list(properties.getOrDefault("Policies", List.of()))) {
                    policies.add(document(map(inline).get("PolicyDocument")));
                }
                policies.addAll(attached.getOrDefault((user ? "Users/" : "Roles/") + name, List.of()));
                var tags = new LinkedHashMap<String, String>();
                for (Object tag : list(properties.getOrDefault("Tags", List.of()))) {
                    tags.put(String.valueOf(map(tag).get("Key")), String.valueOf(map(tag).get("Value")));
                }
                String arn = "arn:aws:iam::" + stack.account() + ":" + (user ? "user/" : "role/") + name;
                Set<String> accounts = user ? Set.of() : serviceAccounts(properties.get("AssumeRolePolicyDocument"));
                principals.add(new Principal(id, name, arn, user, policies, tags, accounts));
            }
        }
    }

    /** The ServiceAccounts ({@code namespace:name}) a trust policy admits through the cluster's OIDC issuer. */
    private Set<String> serviceAccounts(Object trust) {
        String issuer = stack.parameter(OIDC_PARAMETER).orElse("");
        var accounts = new LinkedHashSet<String>();
        for (Object entry : list(map(document(trust)).get("Statement"))) {
            Map<String, Object> statement = map(entry);
            Object principal = statement.get("Principal");
            boolean federated = principal instanceof Map<?, ?> kinds && list(map(kinds).getOrDefault("Federated",
                    List.of())).stream().anyMatch(p -> String.valueOf(p).endsWith(":oidc-provider/" + issuer));
            if (!"Allow".equals(statement.get("Effect")) || !federated
                    || !list(statement.get("Action")).contains(WEB_IDENTITY)) {
                continue;
            }
            Map<String, Object> conditions = map(statement.getOrDefault("Condition", Map.of()));
            Map<String, Object> equals = map(conditions.getOrDefault("StringEquals", Map.of()));
            for (Object subject : list(equals.getOrDefault(issuer + ":sub", List.of()))) {
                String text = String.valueOf(subject);
                if (text.startsWith(SERVICE_ACCOUNT)) {
                    accounts.add(text.substring(SERVICE_ACCOUNT.length()));
                }
            }
        }
        return accounts;
    }

    private void readResourcePolicies() {
        for (String id : stack.ofType("AWS::S3::BucketPolicy")) {
            Map<String, Object> properties = stack.properties(id);
            addResourcePolicy("arn:aws:s3:::" + properties.get("Bucket"), document(properties.get("PolicyDocument")));
        }
        for (String id : stack.ofType("AWS::SQS::QueuePolicy")) {
            Map<String, Object> properties = stack.properties(id);
            for (Object url : list(properties.get("Queues"))) {
                String text = String.valueOf(url);
                addResourcePolicy("arn:aws:sqs:" + stack.region() + ":" + stack.account() + ":"
                        + text.substring(text.lastIndexOf('/') + 1), document(properties.get("PolicyDocument")));
            }
        }
    }

    /** Several policies on one resource act as one: their statements together. */
    private void addResourcePolicy(String arn, Object document) {
        Object existing = resourcePolicies.get(arn);
        if (existing == null) {
            resourcePolicies.put(arn, document);
            return;
        }
        var statements = new ArrayList<Object>(list(map(existing).get("Statement")));
        statements.addAll(list(map(document).get("Statement")));
        resourcePolicies.put(arn, Map.of("Version", "2012-10-17", "Statement", statements));
    }

    /** A policy document as the template gives it: a map, or a JSON string (the trust policies are {@code !Sub} text). */
    private static Object document(Object value) {
        return value instanceof String text ? Json.parse(text) : value;
    }

    public String account() {
        return stack.account();
    }

    public String region() {
        return stack.region();
    }

    public List<Table> tables() {
        return List.copyOf(tables);
    }

    /** The buckets' names. */
    public List<String> buckets() {
        return List.copyOf(buckets);
    }

    /**
     * Whether the ARN names what this deployment creates (a table or one of its indexes, a bucket or one of its
     * objects, a queue), or {@code *}.
     */
    public boolean creates(String arn) {
        if (arn.equals("*")) {
            return true;
        }
        String tablePrefix = "arn:aws:dynamodb:" + region() + ":" + account() + ":table/";
        String queuePrefix = "arn:aws:sqs:" + region() + ":" + account() + ":";
        return tables.stream().anyMatch(t -> arn.equals(tablePrefix + t.name())
                        || arn.startsWith(tablePrefix + t.name() + "/index/"))
                || buckets.stream().anyMatch(b -> arn.equals("arn:aws:s3:::" + b) || arn.startsWith("arn:aws:s3:::" + b + "/"))
                || queues.stream().anyMatch(q -> arn.equals(queuePrefix + q));
    }

    public List<Principal> principals() {
        return List.copyOf(principals);
    }

    /** The role whose trust admits the ServiceAccount ({@code namespace}, {@code name}) through the cluster's issuer. */
    public Optional<Principal> roleOf(String namespace, String serviceAccount) {
        return principals.stream().filter(p -> p.serviceAccounts().contains(namespace + ":" + serviceAccount))
                .findFirst();
    }

    /** The IAM user of that name. */
    public Optional<Principal> user(String name) {
        return principals.stream().filter(p -> p.user() && p.name().equals(name)).findFirst();
    }

    /** The bucket and queue policies, by the ARN of what they are attached to. */
    public Map<String, Object> resourcePolicies() {
        return Map.copyOf(resourcePolicies);
    }

    /** The template's outputs in this stack. */
    public Map<String, String> outputs() {
        return stack.outputs();
    }

    /** The ConfigMap's storage keys: {@code evaluation.leaderboards.<id>.bucket}, {@code .submissions-table}, ... */
    public Map<String, String> storage() {
        return Map.copyOf(storage);
    }

    /** What the IAM evaluator does not understand in the policies of the principals and resources: empty to start. */
    public List<String> unsupportedPolicies() {
        var problems = new ArrayList<String>();
        for (Principal principal : principals) {
            principal.policies().forEach(document -> Policy.of(document).unsupported()
                    .forEach(problem -> problems.add(principal.name() + ": " + problem)));
        }
        resourcePolicies.forEach((arn, document) -> Policy.of(document).unsupported()
                .forEach(problem -> problems.add(arn + ": " + problem)));
        return problems;
    }
}
