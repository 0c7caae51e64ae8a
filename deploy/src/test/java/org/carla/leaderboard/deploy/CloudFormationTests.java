package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.list;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.map;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ServiceAccount;

import org.carla.leaderboard.domain.ledger.RouteLedgerTable;
import org.carla.leaderboard.localstack.deploy.CloudFormationTemplate;
import org.carla.leaderboard.messaging.ConsumerOptions;
import org.carla.leaderboard.messaging.QueuesConfig;

/**
 * deploy/aws/leaderboard-backend.yaml against the shared contracts (queue, table and bucket names and keys), the
 * manifests that use it (ServiceAccounts, the services' ConfigMap) and the trust levels (who may send what). Least
 * privilege per service is not listed here: the local stack enforces the template on every run, and e2e's
 * PermissionsUsedIT compares its grants with the calls the runs made, both ways.
 */
class CloudFormationTests {

    private final CloudFormationTemplate template = CloudFormationTemplate.read(DeployFiles.deploy("aws/leaderboard-backend.yaml"));

    /** The consumer's visibility back-off cap (15 minutes, as decided for issue 14), from messaging's defaults. */
    static final Duration CONSUMER_BACKOFF_CAP = ConsumerOptions.defaults().maxRetryBackoff();

    /** SQS's longest retention. */
    static final Duration FOURTEEN_DAYS = Duration.ofDays(14);

    static List<String> queues() {
        return QueuesConfig.ALL;
    }

    @Test
    void theTemplateHoldsEveryQueueOfTheSystemAndItsDeadLetterQueueAndNoOther() {
        List<String> expected = new ArrayList<>();
        queues().forEach(queue -> expected.addAll(List.of(queue, queue + "-dlq")));

        assertThat(template.ofType("AWS::SQS::Queue").stream().map(id -> template.properties(id).get("QueueName")))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    @ParameterizedTest
    @MethodSource("queues")
    void everyQueueRidesOutTwoDaysOfOutageAndKeepsEveryMessageFourteenDays(String name) {
        String queue = template.named("AWS::SQS::Queue", "QueueName", name);
        String deadLetter = template.named("AWS::SQS::Queue", "QueueName", name + "-dlq");

        Map<String, Object> redrive = map(template.properties(queue).get("RedrivePolicy"));
        assertThat(redrive).containsEntry("deadLetterTargetArn", Map.of("Fn::GetAtt", List.of(deadLetter, "Arn")));
        int receives = (Integer) redrive.get("maxReceiveCount");
        assertThat(receives).as("SQS moves a message to the dead-letter queue only after this many receives").isEqualTo(200);
        Duration riddenOut = CONSUMER_BACKOFF_CAP.multipliedBy(receives);
        assertThat(riddenOut).as("a dependency's outage ridden out at the back-off cap before SQS dead-letters")
                .isGreaterThanOrEqualTo(Duration.ofHours(24)).isLessThan(FOURTEEN_DAYS);
        for (String id : List.of(queue, deadLetter)) {
            assertThat(template.properties(id)).as(id)
                    .containsEntry("MessageRetentionPeriod", (int) FOURTEEN_DAYS.toSeconds())
                    .containsEntry("SqsManagedSseEnabled", true);
        }
        assertThat(template.properties(deadLetter)).doesNotContainKey("RedrivePolicy");
    }

    @Test
    void theTablesAreTheOnesTheServicesAreConfiguredWithAndHaveTheContractsKeys() {
        Properties defaults = domainDefaults();
        List<String> leaderboardTables = defaults.stringPropertyNames().stream()
                .filter(key -> key.matches("evaluation\\.leaderboards\\.[^.]+\\.submissions-table"))
                .map(defaults::getProperty).sorted().toList();
        assertThat(leaderboardTables).isNotEmpty();

        for (String table : leaderboardTables) {
            assertThat(keys(template.named("AWS::DynamoDB::Table", "TableName", table))).as(table)
                    .isEqualTo(List.of("team_id S HASH", "submission_id S RANGE"));
        }
        String qualifiers = template.named("AWS::DynamoDB::Table", "TableName", defaults.getProperty("evaluation.qualifier-table"));
        assertThat(keys(qualifiers)).isEqualTo(List.of("team_id S HASH", "track_codename S RANGE"));
        assertThat(defaults.getProperty("evaluation.route-ledger-table")).isEqualTo(RouteLedgerTable.DEFAULT_NAME);
        String ledger = template.named("AWS::DynamoDB::Table", "TableName", RouteLedgerTable.DEFAULT_NAME);
        assertThat(keys(ledger)).isEqualTo(List.of(RouteLedgerTable.LEDGER + " S HASH", RouteLedgerTable.ENTRY
                + " S RANGE"));
        assertThat(template.ofType("AWS::DynamoDB::Table")).hasSize(leaderboardTables.size() + 2);
    }

    @Test
    void everyBucketIsEncryptedPrivateTlsOnlyAndHasALifecycle() {
        List<String> buckets = template.ofType("AWS::S3::Bucket");
        assertThat(buckets).as("one bucket per leaderboard").hasSize(leaderboards().size());

        for (String bucket : buckets) {
            Map<String, Object> properties = template.properties(bucket);
            Map<String, Object> encryption = map(list(map(properties.get("BucketEncryption"))
                    .get("ServerSideEncryptionConfiguration")).get(0));
            assertThat(map(encryption.get("ServerSideEncryptionByDefault"))).containsKey("SSEAlgorithm");
            assertThat(map(properties.get("PublicAccessBlockConfiguration"))).as(bucket).isEqualTo(Map.of(
                    "BlockPublicAcls", true, "BlockPublicPolicy", true, "IgnorePublicAcls", true, "RestrictPublicBuckets", true));
            assertThat(properties.get("OwnershipControls").toString()).contains("BucketOwnerEnforced");
            assertThat(list(map(properties.get("LifecycleConfiguration")).get("Rules")))
                    .anyMatch(rule -> map(rule).containsKey("AbortIncompleteMultipartUpload"))
                    .anyMatch(rule -> map(rule).containsKey("Transitions"));

            String policy = template.ofType("AWS::S3::BucketPolicy").stream()
                    .filter(id -> Map.of("Ref", bucket).equals(template.properties(id).get("Bucket"))).findFirst()
                    .orElseThrow(() -> new AssertionError(bucket + " has no bucket policy"));
            assertThat(statements(template.properties(policy).get("PolicyDocument")))
                    .anyMatch(statement -> "Deny".equals(statement.get("Effect"))
                            && statement.get("Condition").toString().contains("aws:SecureTransport=false"));
        }
    }

    /**
     * Any resource only for the two actions IAM accepts no resource for: the ECR login, and ops-console's read of the
     * queues' metrics (GetMetricData has neither resource-level permissions nor condition keys).
     */
    @Test
    void noPolicyAllowsAWildcardActionAndOnlyTheEcrLoginAndTheConsolesMetricsReadAnyResource() {
        for (Grant grant : grants()) {
            assertThat(grant.action()).as(grant.toString()).doesNotEndWith("*");
            if (grant.resource().equals("*")) {
                assertThat(grant.action().equals("ecr:GetAuthorizationToken")
                        || grant.action().equals("cloudwatch:GetMetricData")
                                && grant.policyOwner().equals("OpsConsoleRole")).as(grant.toString()).isTrue();
            }
        }
    }

    @Test
    void onlyIngestServiceAndJobLauncherSendLifecycleEventsAndOnlyTheSubmissionsPodsReportProgress() {
        // besides the operators' redrive of dead letters (the ops console), which sends back what was sent there
        Set<String> lifecycleSenders = grants().stream()
                .filter(grant -> grant.action().equals("sqs:SendMessage") && grant.resource().equals("SubmissionEvents"))
                .map(Grant::policyOwner).collect(Collectors.toCollection(TreeSet::new));
        assertThat(lifecycleSenders).containsExactlyInAnyOrder("IngestServiceRole", "JobLauncherRole", "OpsConsoleRole");

        Set<String> progressSenders = grants().stream()
                .filter(grant -> grant.action().equals("sqs:SendMessage") && grant.resource().equals("ProgressReports"))
                .map(Grant::policyOwner).collect(Collectors.toCollection(TreeSet::new));
        assertThat(progressSenders).containsExactlyInAnyOrder("SubmissionWorkerRole", "OpsConsoleRole");
    }

    @Test
    void theScopedRoleReachesOnlyTheSubmissionsOwnPrefixNamedByItsSessionTag() {
        Set<Grant> grants = grantsOf("SubmissionScopedRole");
        assertThat(resourcesFor(grants, "s3:GetObject")).containsExactlyInAnyOrder(
                "Leaderboard10Bucket/${!aws:PrincipalTag/submission-id}/*", "Leaderboard20Bucket/${!aws:PrincipalTag/submission-id}/*");
        Map<String, Object> listing = statements(map(list(template.properties("SubmissionScopedRole").get("Policies")).get(0))
                .get("PolicyDocument")).stream().filter(s -> "s3:ListBucket".equals(s.get("Action"))).findFirst().orElseThrow();
        assertThat(listing.get("Condition").toString()).contains("s3:prefix=[${aws:PrincipalTag/submission-id}/*]");

        Map<String, Object> trust = statements(template.properties("SubmissionScopedRole").get("AssumeRolePolicyDocument")).get(0);
        assertThat(trust.get("Condition").toString())
                .contains("aws:RequestTag/submission-id=?*", "aws:RequestTag/submission-id=*/*", "aws:TagKeys=[submission-id]");
        assertThat(grantsOf("SubmissionWorkerRole")).anyMatch(grant -> grant.action().equals("sts:TagSession")
                && grant.resource().equals("SubmissionScopedRole"));
    }

    @ParameterizedTest(name = "{0} trusts only {1}:{2}")
    @CsvSource({
            "IngestServiceRole, leaderboard, ingest-service",
            "JobLauncherRole, leaderboard, job-launcher",
            "ResultsRelayRole, leaderboard, results-relay",
            "OpsConsoleRole, leaderboard, ops-console",
            "SubmissionWorkerRole, submissions, submission-worker"})
    void eachIrsaRoleTrustsExactlyItsServiceAccount(String role, String namespace, String serviceAccount) throws IOException {
        String trustJson = map(template.properties(role).get("AssumeRolePolicyDocument")).get("Fn::Sub").toString()
                .replace("${OidcProviderUrl}", "oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE")
                .replace("${AWS::Partition}", "aws").replace("${AWS::AccountId}", "123456789012")
                .replace("${ServicesNamespace}", parameterDefault("ServicesNamespace"))
                .replace("${SubmissionsNamespace}", parameterDefault("SubmissionsNamespace"));
        JsonNode statement = new ObjectMapper().readTree(trustJson).get("Statement").get(0);

        assertThat(statement.get("Action").asText()).isEqualTo("sts:AssumeRoleWithWebIdentity");
        assertThat(statement.get("Principal").get("Federated").asText())
                .isEqualTo("arn:aws:iam::123456789012:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE");
        JsonNode equals = statement.get("Condition").get("StringEquals");
        assertThat(equals.get("oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE:sub").asText())
                .isEqualTo("system:serviceaccount:" + namespace + ":" + serviceAccount);
        assertThat(equals.get("oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE:aud").asText()).isEqualTo("sts.amazonaws.com");
    }

    @Test
    void theSubmissionWorkerServiceAccountNamesTheRoleThatTrustsIt() {
        ServiceAccount account = (ServiceAccount) DeployFiles.objects(DeployFiles.deploy("submissions/submission-worker.yml")).get(0);

        assertThat(account.getMetadata().getNamespace()).isEqualTo(parameterDefault("SubmissionsNamespace"));
        assertThat(account.getMetadata().getAnnotations()).containsEntry("eks.amazonaws.com/role-arn",
                "arn:aws:iam::ACCOUNT_ID:role/" + template.properties("SubmissionWorkerRole").get("RoleName"));
    }

    @Test
    void theServicesConfigMapNamesTheQueuesBucketsAndTablesTheTemplateCreates() throws IOException {
        ConfigMap configMap = (ConfigMap) DeployFiles.objects(DeployFiles.deploy("services/leaderboard-config.yml")).get(0);
        Properties config = new Properties();
        config.load(new StringReader(configMap.getData().get("application.properties")));

        for (String queue : queues()) {
            template.named("AWS::SQS::Queue", "QueueName", queue);
            assertThat(config.getProperty("queues." + queue + ".url")).isEqualTo(queueUrl(queue));
            assertThat(config.getProperty("queues." + queue + ".dead-letter-url")).isEqualTo(queueUrl(queue + "-dlq"));
        }
        assertThat(config.getProperty("launcher.progress-reports-queue-url"))
                .as("logcopy reports to the untrusted queue").isEqualTo(queueUrl(QueuesConfig.PROGRESS_REPORTS));
        assertThat(config.stringPropertyNames()).doesNotContain("launcher.submission-events-queue-url");
        for (String leaderboard : leaderboards()) {
            String number = leaderboard.replace("leaderboard-", "");
            String bucketName = map(template.properties("Leaderboard" + number + "Bucket").get("BucketName")).get("Fn::Sub").toString()
                    .replace("${AWS::AccountId}", "ACCOUNT_ID").replace("${AWS::Region}", "REGION");
            assertThat(config.getProperty("evaluation.leaderboards." + leaderboard + ".bucket")).isEqualTo(bucketName);
            template.named("AWS::DynamoDB::Table", "TableName",
                    config.getProperty("evaluation.leaderboards." + leaderboard + ".submissions-table"));
        }
        template.named("AWS::DynamoDB::Table", "TableName", config.getProperty("evaluation.qualifier-table"));
        template.named("AWS::DynamoDB::Table", "TableName", config.getProperty("evaluation.route-ledger-table"));

        List<String> images = config.stringPropertyNames().stream().filter(key -> key.endsWith("-image")).map(config::getProperty).toList();
        assertThat(images).hasSizeGreaterThanOrEqualTo(1 + 2 * leaderboards().size());
        for (String image : images) {
            assertThat(image).startsWith("ACCOUNT_ID.dkr.ecr.REGION.amazonaws.com/");
            String repository = image.substring(image.indexOf('/') + 1, image.lastIndexOf(':'));
            template.named("AWS::ECR::Repository", "RepositoryName", repository);
        }
    }

    private static String queueUrl(String queue) {
        return "https://sqs.REGION.amazonaws.com/ACCOUNT_ID/" + queue;
    }

    /** One allowed action on one resource, the resource as the logical id it names ("Bucket/*" for an object ARN). */
    record Grant(String policyOwner, String action, String resource) {
    }

    private Set<Grant> grantsOf(String role) {
        return grants().stream().filter(grant -> grant.policyOwner().equals(role)).collect(Collectors.toSet());
    }

    private List<Grant> grants() {
        List<Grant> grants = new ArrayList<>();
        var principals = new ArrayList<>(template.ofType("AWS::IAM::Role"));
        principals.addAll(template.ofType("AWS::IAM::User"));
        for (String principal : principals) {
            Object policies = template.properties(principal).get("Policies");
            if (policies != null) {
                list(policies).forEach(policy -> grants.addAll(grants(principal, map(policy).get("PolicyDocument"))));
            }
        }
        for (String policy : template.ofType("AWS::IAM::Policy")) {
            Map<String, Object> properties = template.properties(policy);
            for (Object role : list(properties.get("Roles"))) {
                grants.addAll(grants(map(role).get("Ref").toString(), properties.get("PolicyDocument")));
            }
        }
        return grants;
    }

    private static List<Grant> grants(String owner, Object document) {
        List<Grant> grants = new ArrayList<>();
        for (Map<String, Object> statement : statements(document)) {
            if (!"Allow".equals(statement.get("Effect"))) {
                continue;
            }
            for (Object action : list(statement.get("Action"))) {
                for (Object resource : list(statement.get("Resource"))) {
                    grants.add(new Grant(owner, action.toString(), resourceName(resource)));
                }
            }
        }
        return grants;
    }

    private static String resourceName(Object resource) {
        if (resource instanceof Map<?, ?> function) {
            if (function.containsKey("Fn::GetAtt")) {
                return list(function.get("Fn::GetAtt")).get(0).toString();
            }
            if (function.containsKey("Fn::Sub")) {
                // "${Bucket.Arn}/*" → "Bucket/*"
                return function.get("Fn::Sub").toString().replaceFirst("^\\$\\{([A-Za-z0-9]+)\\.Arn}", "$1");
            }
        }
        return resource.toString();
    }

    private static Set<String> resourcesFor(Set<Grant> grants, String action) {
        return grants.stream().filter(grant -> grant.action().equals(action)).map(Grant::resource).collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<Map<String, Object>> statements(Object document) {
        return list(map(document).get("Statement")).stream().map(CloudFormationTemplate::map).toList();
    }

    private List<String> keys(String table) {
        Map<String, Object> properties = template.properties(table);
        Map<String, String> types = list(properties.get("AttributeDefinitions")).stream().map(CloudFormationTemplate::map)
                .collect(Collectors.toMap(a -> a.get("AttributeName").toString(), a -> a.get("AttributeType").toString()));
        return list(properties.get("KeySchema")).stream().map(CloudFormationTemplate::map)
                .map(key -> key.get("AttributeName") + " " + types.get(key.get("AttributeName").toString()) + " " + key.get("KeyType"))
                .toList();
    }

    private String parameterDefault(String parameter) {
        return map(template.parameters().get(parameter)).get("Default").toString();
    }

    private static List<String> leaderboards() {
        Properties defaults = domainDefaults();
        return defaults.stringPropertyNames().stream()
                .filter(key -> key.matches("evaluation\\.leaderboards\\.[^.]+\\.bucket"))
                .map(key -> key.split("\\.")[2]).sorted().toList();
    }

    private static Properties domainDefaults() {
        Properties defaults = new Properties();
        try {
            defaults.load(new StringReader(DeployFiles.read(
                    DeployFiles.root().resolve("domain/src/main/resources/META-INF/microprofile-config.properties"))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return defaults;
    }
}
