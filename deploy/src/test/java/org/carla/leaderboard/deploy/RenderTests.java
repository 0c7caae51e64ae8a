package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;

import org.carla.leaderboard.deploy.DeployScripts.Run;

/** deploy/render.sh turns the committed manifests into what kubectl applies for one AWS account and region. */
class RenderTests {

    @Test
    void theAccountAndRegionReplaceEveryPlaceholder() throws Exception {
        Run run = render("123456789012", "eu-west-1");
        assertThat(run.exitCode()).as(run.err()).isZero();

        assertThat(run.out()).doesNotContainPattern("\\bACCOUNT_ID\\b").doesNotContainPattern("\\bREGION\\b");
        List<HasMetadata> objects = objects(run.out());
        ServiceAccount worker = objects.stream().filter(ServiceAccount.class::isInstance).map(ServiceAccount.class::cast)
                .filter(account -> account.getMetadata().getName().equals("submission-worker")).findFirst().orElseThrow();
        assertThat(worker.getMetadata().getAnnotations())
                .containsEntry("eks.amazonaws.com/role-arn", "arn:aws:iam::123456789012:role/carla-leaderboard-submission-worker");

        ConfigMap config = objects.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast).findFirst().orElseThrow();
        Properties properties = new Properties();
        properties.load(new StringReader(config.getData().get("application.properties")));
        assertThat(properties.getProperty("queues.submissions.url")).isEqualTo("https://sqs.eu-west-1.amazonaws.com/123456789012/submissions");
        assertThat(properties.getProperty("quarkus.sqs.aws.region")).isEqualTo("eu-west-1");
    }

    @Test
    void aGeneratedServiceManifestGetsItsEcrImageAndIrsaRole() throws Exception {
        Run run = render("123456789012", "eu-west-1",
                DeployFiles.root().resolve("deploy/src/test/resources/fixtures/job-launcher-generated.yml").toString());
        assertThat(run.exitCode()).as(run.err()).isZero();

        List<HasMetadata> objects = objects(run.out());
        Deployment launcher = objects.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast).findFirst().orElseThrow();
        assertThat(launcher.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
                .startsWith("123456789012.dkr.ecr.eu-west-1.amazonaws.com/carla-leaderboard/job-launcher:");
        assertThat(objects.stream().filter(ServiceAccount.class::isInstance).findFirst().orElseThrow().getMetadata().getAnnotations())
                .containsEntry("eks.amazonaws.com/role-arn", "arn:aws:iam::123456789012:role/carla-leaderboard-job-launcher");
    }

    @Test
    void aHostileAccountOrRegionIsRefusedBeforeAnythingIsPrinted() throws Exception {
        for (List<String> arguments : List.of(List.of("1234", "eu-west-1"), List.of("123456789012", "eu-west-1/g;s/x/y"),
                List.of("123456789012;id", "eu-west-1"))) {
            Run run = render(arguments.get(0), arguments.get(1));

            assertThat(run.exitCode()).as(arguments.toString()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).startsWith("error:");
        }
    }

    static List<HasMetadata> objects(String yaml) {
        Object parsed = Serialization.unmarshal(yaml);
        return parsed instanceof KubernetesList list ? list.getItems()
                : ((List<?>) parsed).stream().map(HasMetadata.class::cast).toList();
    }

    private static Run render(String... arguments) {
        return DeployScripts.run("render.sh", arguments);
    }
}
