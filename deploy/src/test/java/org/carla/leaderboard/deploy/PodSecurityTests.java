package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

import org.carla.leaderboard.deploy.PodSecurityStandards.Level;
import org.carla.leaderboard.localstack.deploy.CloudFormationTemplate;

/**
 * The namespaces enforce a Pod Security level, and what runs in them passes it: the services' and the ops console's
 * Deployments in leaderboard (restricted), the Job job-launcher builds in submissions (its golden YAML, which job-launcher's tests
 * keep equal to what SubmissionJob builds).
 */
class PodSecurityTests {

    /** The Job of the seeds' configuration, kept in sync with SubmissionJob by job-launcher's SubmissionJobTests. */
    static final Path SEEDS_JOB = DeployFiles.root().resolve("job-launcher/src/test/resources/golden/seeds-job.yaml");

    @Test
    void theSubmissionsNamespaceEnforcesAtLeastBaselineAndWarnsAndAuditsRestricted() {
        Map<String, String> labels = namespace("submissions/namespace.yml").getMetadata().getLabels();

        assertThat(Level.of(labels.get("pod-security.kubernetes.io/enforce"))).isIn(Level.BASELINE, Level.RESTRICTED);
        assertThat(labels).containsEntry("pod-security.kubernetes.io/warn", "restricted")
                .containsEntry("pod-security.kubernetes.io/audit", "restricted");
        assertVersionsPinnedToTheCluster(labels);
    }

    @Test
    void theServicesNamespaceEnforcesRestricted() {
        Map<String, String> labels = namespace("services/namespace.yml").getMetadata().getLabels();

        assertThat(labels).containsEntry("pod-security.kubernetes.io/enforce", "restricted");
        assertVersionsPinnedToTheCluster(labels);
    }

    static java.util.List<String> services() {
        return DeployFiles.SERVICES;
    }

    @ParameterizedTest(name = "{0} passes the services namespace's level")
    @MethodSource("services")
    void everyServicePassesTheLevelItsNamespaceEnforces(String service) {
        Level enforced = Level.of(namespace("services/namespace.yml").getMetadata().getLabels().get("pod-security.kubernetes.io/enforce"));
        Deployment deployment = DeployFiles.objects(DeployFiles.deploy("kubernetes/" + service + ".yml")).stream()
                .filter(Deployment.class::isInstance).map(Deployment.class::cast).findFirst().orElseThrow();
        PodTemplateSpec template = deployment.getSpec().getTemplate();

        assertThat(PodSecurityStandards.violations(template.getMetadata(), template.getSpec(), enforced)).isEmpty();
    }

    @Test
    void theSeedsJobPassesTheLevelTheSubmissionsNamespaceEnforces() {
        Level enforced = Level.of(namespace("submissions/namespace.yml").getMetadata().getLabels().get("pod-security.kubernetes.io/enforce"));
        Job job = (Job) DeployFiles.objects(SEEDS_JOB).get(0);
        PodTemplateSpec template = job.getSpec().getTemplate();

        assertThat(PodSecurityStandards.violations(template.getMetadata(), template.getSpec(), enforced))
                .as("the Job's pod would be refused by the admission controller: it would stay without a pod").isEmpty();
    }

    /** The level's rules are those of the cluster's Kubernetes version, not whatever the API server's latest is. */
    private static void assertVersionsPinnedToTheCluster(Map<String, String> labels) {
        Map<String, Object> cluster = new Yaml().load(DeployFiles.read(DeployFiles.deploy("cluster/cluster.yaml")));
        String version = "v" + CloudFormationTemplate.map(cluster.get("metadata")).get("version");
        for (String mode : new String[] {"enforce", "warn", "audit"}) {
            assertThat(labels).containsEntry("pod-security.kubernetes.io/" + mode + "-version", version);
        }
    }

    private static Namespace namespace(String file) {
        return (Namespace) DeployFiles.objects(DeployFiles.deploy(file)).get(0);
    }
}
