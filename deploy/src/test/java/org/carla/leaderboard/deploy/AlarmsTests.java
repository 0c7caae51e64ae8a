package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.list;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.map;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;

import org.carla.leaderboard.messaging.Dependencies;
import org.carla.leaderboard.localstack.deploy.CloudFormationTemplate;
import org.carla.leaderboard.messaging.QueuesConfig;

/**
 * The alarms of deploy/aws/leaderboard-backend.yaml watch what issue 14 names — every dead-letter queue's depth, the
 * age of every queue's oldest message, the stuck-submission gauges — and the gauges really reach CloudWatch under the
 * name the alarms watch, through the CloudWatch agent's scrape of the services (deploy/cluster).
 */
class AlarmsTests {

    /** The stuck-submission rules, one gauge each: leaderboard_stuck_submissions{rule=...} (deploy/README.md). */
    static final List<String> STUCK_RULES = List.of("unlaunched", "no-progress", "unconfirmed-final", "unreported-job");

    private final CloudFormationTemplate template = CloudFormationTemplate.read(DeployFiles.deploy("aws/leaderboard-backend.yaml"));

    static List<String> queues() {
        return QueuesConfig.ALL;
    }

    @ParameterizedTest(name = "{0}: dead letters, a stalled queue and dead letters about to expire all alarm")
    @MethodSource("queues")
    void everyQueueAlarmsOnDeadLettersOnItsOldestMessageAndOnDeadLettersNearingExpiry(String name) {
        String queue = template.named("AWS::SQS::Queue", "QueueName", name);
        String deadLetter = template.named("AWS::SQS::Queue", "QueueName", name + "-dlq");

        Map<String, Object> depth = alarmOn("AWS/SQS", "ApproximateNumberOfMessagesVisible", deadLetter)
                .orElseThrow(() -> new AssertionError("no alarm on the depth of " + name + "-dlq"));
        assertThat(depth).containsEntry("Threshold", 0).containsEntry("ComparisonOperator", "GreaterThanThreshold");

        Map<String, Object> stalled = alarmOn("AWS/SQS", "ApproximateAgeOfOldestMessage", queue)
                .orElseThrow(() -> new AssertionError("no alarm on the oldest message of " + name));
        assertThat(((Number) stalled.get("Threshold")).intValue()).as("seconds").isBetween(300, 6 * 3600);

        Map<String, Object> expiring = alarmOn("AWS/SQS", "ApproximateAgeOfOldestMessage", deadLetter)
                .orElseThrow(() -> new AssertionError("no alarm on the oldest dead letter of " + name));
        int retention = (Integer) template.properties(deadLetter).get("MessageRetentionPeriod");
        assertThat(((Number) expiring.get("Threshold")).intValue()).as("fires with days to spare before SQS drops it")
                .isLessThanOrEqualTo(retention / 2);
        // SQS publishes nothing for an idle queue: no data is no news
        List.of(depth, stalled, expiring).forEach(alarm -> assertThat(alarm).containsEntry("TreatMissingData", "notBreaching"));
    }

    @ParameterizedTest(name = "the stuck rule {0} alarms")
    @MethodSource("stuckRules")
    void everyStuckRuleAlarmsOnTheMetricTheAgentPublishes(String rule) throws IOException {
        JsonNode declaration = stuckGaugeDeclaration();
        String namespace = agentConfig().at("/logs/metrics_collected/prometheus/emf_processor/metric_namespace").asText();

        Map<String, Object> alarm = alarms().stream().map(template::properties)
                .filter(properties -> "leaderboard_stuck_submissions".equals(properties.get("MetricName")))
                .filter(properties -> list(properties.get("Dimensions")).stream().map(CloudFormationTemplate::map)
                        .anyMatch(dimension -> "rule".equals(dimension.get("Name")) && rule.equals(dimension.get("Value"))))
                .findFirst().orElseThrow(() -> new AssertionError("no alarm on the stuck rule " + rule));

        assertThat(alarm.get("Namespace")).as("the agent's metric namespace").isEqualTo(namespace);
        assertThat(list(alarm.get("Dimensions")).stream().map(d -> map(d).get("Name")).toList())
                .as("an alarm matches a metric only with exactly its dimensions")
                .isEqualTo(List.of(declaration.get("dimensions").get(0).get(0).asText()));
        assertThat(alarm).containsEntry("Statistic", "Maximum").containsEntry("Threshold", 0)
                .containsEntry("ComparisonOperator", "GreaterThanThreshold")
                .as("no data means the services or the agent are down").containsEntry("TreatMissingData", "breaching");
    }

    static List<String> stuckRules() {
        return STUCK_RULES;
    }

    /**
     * A host token EvalAI refuses, or whose user is not a host of the challenge, is a configuration error that holds
     * the work needing EvalAI: the services' gauge of it reaches CloudWatch and alarms at once.
     */
    @Test
    void aHostTokenEvalAiRefusesAlarmsOnTheGaugeTheAgentPublishes() throws IOException {
        JsonNode declaration = declarationOf("leaderboard_dependency_up");
        assertThat(declaration.get("dimensions").toString()).isEqualTo("[[\"dependency\"]]");
        assertThat("leaderboard;" + Dependencies.EVALAI_TOKEN).matches(declaration.get("label_matcher").asText());
        assertThat("leaderboard;" + Dependencies.EVALAI).doesNotMatch(declaration.get("label_matcher").asText());
        String namespace = agentConfig().at("/logs/metrics_collected/prometheus/emf_processor/metric_namespace").asText();

        Map<String, Object> alarm = alarms().stream().map(template::properties)
                .filter(properties -> "leaderboard_dependency_up".equals(properties.get("MetricName")))
                .findFirst().orElseThrow(() -> new AssertionError("no alarm on the host token"));

        assertThat(alarm.get("Namespace")).isEqualTo(namespace);
        assertThat(alarm.get("Dimensions")).isEqualTo(List.of(Map.of("Name", "dependency",
                "Value", Dependencies.EVALAI_TOKEN)));
        assertThat(alarm).containsEntry("Statistic", "Minimum").containsEntry("Threshold", 1)
                .containsEntry("ComparisonOperator", "LessThanThreshold").containsEntry("EvaluationPeriods", 1);
    }

    @Test
    void theAgentScrapesTheServicesNamespaceAndKeepsTheStuckGaugeAsAMetric() throws IOException {
        JsonNode declaration = stuckGaugeDeclaration();
        assertThat(declaration.get("dimensions").toString()).isEqualTo("[[\"rule\"]]");

        Map<String, Object> prometheus = new Yaml().load(agentConfigMap().getData().get("prometheus.yaml"));
        List<Object> jobs = list(prometheus.get("scrape_configs"));
        assertThat(jobs).hasSize(1);
        Map<String, Object> job = map(jobs.get(0));
        assertThat(job.get("job_name").toString()).as("the job label the declaration selects on")
                .matches(declaration.get("label_matcher").asText());
        Map<String, Object> discovery = map(list(job.get("kubernetes_sd_configs")).get(0));
        assertThat(discovery).containsEntry("role", "pod");
        assertThat(map(discovery.get("namespaces"))).containsEntry("names", List.of("leaderboard"));
        assertThat(job.get("relabel_configs").toString()).contains("__meta_kubernetes_pod_annotation_prometheus_io_scrape");
    }

    @ParameterizedTest
    @ValueSource(strings = {"AlarmActions", "OKActions"})
    void everyAlarmNotifiesTheAlarmTopic(String actions) {
        String topic = template.ofType("AWS::SNS::Topic").stream().findFirst().orElseThrow();
        assertThat(alarms()).isNotEmpty()
                .allSatisfy(alarm -> assertThat(template.properties(alarm).get(actions)).as(alarm + " " + actions)
                        .isEqualTo(List.of(Map.of("Ref", topic))));
    }

    private Optional<Map<String, Object>> alarmOn(String namespace, String metric, String queue) {
        return alarms().stream().map(template::properties)
                .filter(properties -> namespace.equals(properties.get("Namespace")) && metric.equals(properties.get("MetricName")))
                .filter(properties -> list(properties.get("Dimensions")).stream().map(CloudFormationTemplate::map)
                        .anyMatch(dimension -> "QueueName".equals(dimension.get("Name"))
                                && Map.of("Fn::GetAtt", List.of(queue, "QueueName")).equals(dimension.get("Value"))))
                .findFirst();
    }

    private List<String> alarms() {
        return template.ofType("AWS::CloudWatch::Alarm");
    }

    private static JsonNode stuckGaugeDeclaration() throws IOException {
        return declarationOf("leaderboard_stuck_submissions");
    }

    private static JsonNode declarationOf(String metric) throws IOException {
        JsonNode declarations = agentConfig().at("/logs/metrics_collected/prometheus/emf_processor/metric_declaration");
        for (JsonNode declaration : declarations) {
            for (JsonNode selector : declaration.get("metric_selectors")) {
                if (metric.matches(selector.asText())) {
                    return declaration;
                }
            }
        }
        throw new AssertionError("no EMF declaration selects " + metric);
    }

    private static JsonNode agentConfig() throws IOException {
        return new ObjectMapper().readTree(agentConfigMap().getData().get("cwagentconfig.json"));
    }

    private static ConfigMap agentConfigMap() {
        return DeployFiles.objects(DeployFiles.deploy("cluster/cloudwatch-agent-prometheus.yml")).stream()
                .filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast).findFirst().orElseThrow();
    }
}
