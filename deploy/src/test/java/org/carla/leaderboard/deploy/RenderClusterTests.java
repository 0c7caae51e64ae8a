package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.list;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.map;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import org.carla.leaderboard.localstack.deploy.CloudFormationTemplate;
import org.carla.leaderboard.deploy.DeployScripts.Run;

/**
 * deploy/cluster/render-cluster.sh gives eksctl the cluster in the network stack's VPC: every NETWORK_ placeholder
 * becomes the stack's output of that name, and nothing that is not a VPC or subnet id reaches the file.
 */
class RenderClusterTests {

    private static final String STACK = "carla-leaderboard-network";

    @TempDir
    Path awsFolder;

    @Test
    void theNodeGroupsAndTheControlPlaneLandInTheNetworkStacksSubnets() {
        FakeAwsCli aws = new FakeAwsCli(awsFolder).stackOutputs(STACK, outputs());

        Run run = DeployScripts.run(aws, "cluster/render-cluster.sh", "123456789012", "eu-west-1");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).doesNotContainPattern("\\bNETWORK_[A-Za-z0-9]").doesNotContainPattern("\\b(ACCOUNT_ID|REGION)\\b");
        Map<String, Object> cluster = new Yaml().load(run.out());
        assertThat(map(cluster.get("metadata"))).containsEntry("region", "eu-west-1");
        Map<String, Object> vpc = map(cluster.get("vpc"));
        assertThat(vpc).containsEntry("id", "vpc-0123456789abcdef0")
                .containsEntry("controlPlaneSubnetIDs", List.of("subnet-00000000000000003", "subnet-00000000000000004"));
        Map<String, Object> privateSubnets = map(map(vpc.get("subnets")).get("private"));
        Map<String, Object> gpu = nodeGroup(cluster, "g5.12xlarge");
        assertThat(list(gpu.get("subnets")).stream().map(name -> map(privateSubnets.get(name.toString())).get("id")))
                .containsExactly("subnet-00000000000000005", "subnet-00000000000000006");
        assertThat(aws.calls()).singleElement().asString()
                .contains("cloudformation describe-stacks", "--region eu-west-1", "--stack-name " + STACK);
    }

    @Test
    void anOutputThatIsNotAnIdIsRefusedBeforeAnythingIsPrinted() {
        Map<String, String> outputs = outputs();
        outputs.put("GpuSubnetA", "subnet-1/g;s/x/y");
        FakeAwsCli aws = new FakeAwsCli(awsFolder).stackOutputs(STACK, outputs);

        Run run = DeployScripts.run(aws, "cluster/render-cluster.sh", "123456789012", "eu-west-1");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("error:").contains("GpuSubnetA");
    }

    @Test
    void anOutputTheFileNeedsButTheStackLacksIsRefused() {
        Map<String, String> outputs = outputs();
        outputs.remove("ServicesSubnetB");
        FakeAwsCli aws = new FakeAwsCli(awsFolder).stackOutputs(STACK, outputs);

        Run run = DeployScripts.run(aws, "cluster/render-cluster.sh", "123456789012", "eu-west-1");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("no output ServicesSubnetB");
    }

    @Test
    void aStackThatDoesNotExistStopsTheRendering() {
        Run run = DeployScripts.run(new FakeAwsCli(awsFolder), "cluster/render-cluster.sh", "123456789012", "eu-west-1");

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.out()).isEmpty();
    }

    @Test
    void everyPlaceholderOfTheClusterFileIsAnOutputOfTheNetworkStack() {
        CloudFormationTemplate network = CloudFormationTemplate.read(DeployFiles.deploy("aws/network.yaml"));
        List<String> placeholders = java.util.regex.Pattern.compile("\\bNETWORK_([A-Za-z0-9]+)\\b")
                .matcher(DeployFiles.read(DeployFiles.deploy("cluster/cluster.yaml"))).results()
                .map(match -> match.group(1)).distinct().toList();

        assertThat(placeholders).isNotEmpty();
        assertThat(map(network.outputs()).keySet()).containsAll(placeholders);
        assertThat(outputs().keySet()).as("this test's stand-in stack").containsExactlyInAnyOrderElementsOf(map(network.outputs()).keySet());
    }

    private static Map<String, Object> nodeGroup(Map<String, Object> cluster, String instanceType) {
        return list(cluster.get("managedNodeGroups")).stream().map(CloudFormationTemplate::map)
                .filter(group -> instanceType.equals(group.get("instanceType"))).findFirst().orElseThrow();
    }

    private static Map<String, String> outputs() {
        Map<String, String> outputs = new LinkedHashMap<>();
        outputs.put("VpcId", "vpc-0123456789abcdef0");
        outputs.put("PublicSubnetA", "subnet-00000000000000001");
        outputs.put("PublicSubnetB", "subnet-00000000000000002");
        outputs.put("ServicesSubnetA", "subnet-00000000000000003");
        outputs.put("ServicesSubnetB", "subnet-00000000000000004");
        outputs.put("GpuSubnetA", "subnet-00000000000000005");
        outputs.put("GpuSubnetB", "subnet-00000000000000006");
        return outputs;
    }
}
