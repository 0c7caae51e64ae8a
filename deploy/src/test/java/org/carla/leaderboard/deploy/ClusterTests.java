package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.list;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.map;

import java.util.List;
import java.util.Map;

import org.carla.leaderboard.localstack.deploy.CloudFormationTemplate;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * The cluster (deploy/cluster/) fits the Jobs and the tools around it: a submission's pod lands on the GPU group, the
 * autoscaler discovers that group and knows what an empty one offers, logs are shipped from the tainted nodes too,
 * and the network policies have an engine.
 */
class ClusterTests {

    /** The toleration job-launcher puts on every Job (deploy/README.md). */
    static final Toleration JOB_TOLERATION = Serialization.unmarshal(
            "{\"key\": \"nvidia.com/gpu\", \"operator\": \"Exists\", \"effect\": \"NoSchedule\"}", Toleration.class);

    private final Map<String, Object> cluster = new Yaml().load(DeployFiles.read(DeployFiles.deploy("cluster/cluster.yaml")));

    @Test
    void theGpuGroupIsG512xlargeFromZeroAndTaintedForTheJobsOnly() {
        Map<String, Object> gpu = gpuNodeGroup();

        assertThat(gpu).containsEntry("instanceType", "g5.12xlarge").containsEntry("minSize", 0).containsEntry("propagateASGTags", true);
        assertThat((Integer) gpu.get("maxSize")).isPositive();
        assertThat(taints(gpu)).isNotEmpty().allMatch(taint -> tolerates(JOB_TOLERATION, taint));
    }

    @Test
    void theAutoscalerDiscoversTheGpuGroupAndKnowsWhatAnEmptyOneOffers() {
        Map<String, Object> gpu = gpuNodeGroup();
        Map<String, Object> tags = map(gpu.get("tags"));
        String clusterName = map(cluster.get("metadata")).get("name").toString();

        Deployment autoscaler = (Deployment) DeployFiles.objects(DeployFiles.deploy("cluster/cluster-autoscaler.yml")).stream()
                .filter(Deployment.class::isInstance).findFirst().orElseThrow();
        String discovery = autoscaler.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand().stream()
                .filter(argument -> argument.startsWith("--node-group-auto-discovery=asg:tag=")).findFirst().orElseThrow()
                .substring("--node-group-auto-discovery=asg:tag=".length());
        assertThat(discovery.split(",")).containsExactlyInAnyOrder("k8s.io/cluster-autoscaler/enabled",
                "k8s.io/cluster-autoscaler/" + clusterName);
        assertThat(tags).containsKeys(discovery.split(","));

        assertThat(tags).containsEntry("k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu",
                        String.valueOf(G5_12XLARGE_GPUS * timeSlicingReplicas()))
                .containsEntry("k8s.io/cluster-autoscaler/node-template/label/node.kubernetes.io/instance-type", gpu.get("instanceType"));
        assertThat(map(gpu.get("labels"))).containsKey("k8s.amazonaws.com/accelerator");
    }

    @Test
    void theSpotGpuGroupIsTheOnDemandGroupBoughtOnTheSpotMarketAndToldApart() {
        Map<String, Object> onDemand = gpuNodeGroup();
        Map<String, Object> spot = spotGpuNodeGroup();

        assertThat(spot).containsEntry("spot", true).containsEntry("instanceTypes", List.of(onDemand.get("instanceType")));
        assertThat(map(onDemand.get("labels"))).containsEntry(CAPACITY_LABEL, "on-demand");
        assertThat(map(spot.get("labels"))).containsEntry(CAPACITY_LABEL, "spot");
        assertThat(map(onDemand.get("tags"))).containsEntry(NODE_TEMPLATE_LABEL + CAPACITY_LABEL, "on-demand");
        assertThat(map(spot.get("tags"))).containsEntry(NODE_TEMPLATE_LABEL + CAPACITY_LABEL, "spot");
        // Everything else is the same node: size, subnets, AMI, IMDS, the runtime's settings, taints, labels and tags.
        assertThat(sameNodeAs(spot)).isEqualTo(sameNodeAs(onDemand));
    }

    @Test
    void theAutoscalerTriesTheSpotGroupFirstAndTheOnDemandGroupWhenSpotHasNoNode() {
        Deployment autoscaler = (Deployment) DeployFiles.objects(DeployFiles.deploy("cluster/cluster-autoscaler.yml")).stream()
                .filter(Deployment.class::isInstance).findFirst().orElseThrow();
        assertThat(autoscaler.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand())
                .contains("--expander=priority,least-waste");
        io.fabric8.kubernetes.api.model.ConfigMap priorities = DeployFiles.objects(DeployFiles.deploy("cluster/cluster-autoscaler.yml"))
                .stream().filter(io.fabric8.kubernetes.api.model.ConfigMap.class::isInstance)
                .map(io.fabric8.kubernetes.api.model.ConfigMap.class::cast)
                .filter(map -> map.getMetadata().getName().equals("cluster-autoscaler-priority-expander")).findFirst().orElseThrow();
        assertThat(priorities.getMetadata().getNamespace()).isEqualTo(autoscaler.getMetadata().getNamespace());
        Map<Integer, List<String>> byPriority = new Yaml().load(priorities.getData().get("priorities"));

        // EKS names a managed node group's Auto Scaling group eks-<node group name>-<uuid>.
        String uuid = "-7ac6b3d1-55f0-c4a2-1e0b-2d9f0c8e4a11";
        int spot = priority(byPriority, "eks-" + spotGpuNodeGroup().get("name") + uuid);
        int onDemand = priority(byPriority, "eks-" + gpuNodeGroup().get("name") + uuid);
        assertThat(spot).isGreaterThan(onDemand);
        assertThat(onDemand).as("the on-demand group stays a choice").isGreaterThanOrEqualTo(0);
    }

    /** The priority expander's rule: the highest priority with a regular expression matching the group's name; -1: none. */
    private static int priority(Map<Integer, List<String>> byPriority, String autoScalingGroup) {
        return byPriority.entrySet().stream()
                .filter(entry -> entry.getValue().stream().anyMatch(regex -> java.util.regex.Pattern.compile(regex)
                        .matcher(autoScalingGroup).find()))
                .mapToInt(Map.Entry::getKey).max().orElse(-1);
    }

    private static final String CAPACITY_LABEL = "leaderboard.carla.org/capacity";
    private static final String NODE_TEMPLATE_LABEL = "k8s.io/cluster-autoscaler/node-template/label/";

    /** A GPU group without what tells the two apart: its name, how it is bought, its capacity label. */
    private static Map<String, Object> sameNodeAs(Map<String, Object> group) {
        var same = new java.util.TreeMap<>(group);
        same.keySet().removeAll(List.of("name", "instanceType", "instanceTypes", "spot"));
        var labels = new java.util.TreeMap<>(map(group.get("labels")));
        labels.remove(CAPACITY_LABEL);
        same.put("labels", labels);
        var tags = new java.util.TreeMap<>(map(group.get("tags")));
        tags.remove(NODE_TEMPLATE_LABEL + CAPACITY_LABEL);
        same.put("tags", tags);
        return same;
    }

    @Test
    void kueuesFlavorSelectsAndToleratesTheGpuGroup() {
        GenericKubernetesResource flavor = (GenericKubernetesResource) DeployFiles.objects(
                DeployFiles.deploy("submissions/kueue/gpu-quota.yml")).stream()
                .filter(object -> object.getKind().equals("ResourceFlavor")).findFirst().orElseThrow();
        Map<String, Object> spec = map(flavor.getAdditionalProperties().get("spec"));

        assertThat(map(spec.get("nodeLabels"))).containsEntry("node.kubernetes.io/instance-type", gpuNodeGroup().get("instanceType"));
        List<Toleration> tolerations = list(spec.get("tolerations")).stream()
                .map(toleration -> Serialization.unmarshal(Serialization.asJson(toleration), Toleration.class)).toList();
        assertThat(taints(gpuNodeGroup())).allMatch(taint -> tolerations.stream().anyMatch(t -> tolerates(t, taint)));
    }

    @Test
    void fluentBitRunsOnTheGpuNodesToo() {
        DaemonSet fluentBit = (DaemonSet) DeployFiles.objects(DeployFiles.deploy("cluster/fluent-bit.yml")).stream()
                .filter(DaemonSet.class::isInstance).findFirst().orElseThrow();
        List<Toleration> tolerations = fluentBit.getSpec().getTemplate().getSpec().getTolerations();

        assertThat(taints(gpuNodeGroup())).allMatch(taint -> tolerations.stream().anyMatch(t -> tolerates(t, taint)));
    }

    @Test
    void theNetworkPoliciesHaveAnEngineAndPodsCannotReachImdsFromTheGpuNodes() {
        Map<String, Object> vpcCni = list(cluster.get("addons")).stream().map(CloudFormationTemplate::map)
                .filter(addon -> "vpc-cni".equals(addon.get("name"))).findFirst().orElseThrow();
        assertThat(vpcCni.get("configurationValues").toString()).contains("\"enableNetworkPolicy\": \"true\"");

        assertThat(gpuNodeGroup()).containsEntry("disableIMDSv1", true).containsEntry("disablePodIMDS", true);
    }

    @Test
    void everyImageTheAddOnsPullComesFromThisAccountsEcrFromARepositoryTheTemplateCreates() {
        CloudFormationTemplate backend = CloudFormationTemplate.read(DeployFiles.deploy("aws/leaderboard-backend.yaml"));
        List<String> images = DeployFiles.yamlFilesUnder(DeployFiles.deploy("cluster")).stream()
                .filter(file -> !file.endsWith("cluster.yaml"))
                .flatMap(file -> DeployFiles.objects(file).stream())
                .flatMap(object -> ServiceManifestChecks.podSpec(object).stream())
                .flatMap(spec -> java.util.stream.Stream.concat(spec.getContainers().stream(),
                        spec.getInitContainers() == null ? java.util.stream.Stream.empty() : spec.getInitContainers().stream()))
                .map(io.fabric8.kubernetes.api.model.Container::getImage).toList();

        assertThat(images).isNotEmpty().allSatisfy(image -> {
            // the GPU nodes have no route to the internet and the DNS firewall resolves only AWS names
            assertThat(image).startsWith("ACCOUNT_ID.dkr.ecr.REGION.amazonaws.com/");
            String repository = image.substring(image.indexOf('/') + 1, image.lastIndexOf(':'));
            backend.named("AWS::ECR::Repository", "RepositoryName", repository);
        });
    }

    @Test
    void theDevicePluginGivesEachPairOneGpuTimeSlicedBetweenItsSimulatorAndItsAgent() {
        Map<String, Object> config = devicePluginConfig();
        Map<String, Object> plugin = map(map(config.get("flags")).get("plugin"));
        Map<String, Object> timeSlicing = map(map(config.get("sharing")).get("timeSlicing"));

        assertThat(list(timeSlicing.get("resources"))).singleElement().satisfies(resource -> assertThat(map(resource))
                .as("one slice for the simulator, one for the agent, under the resource name the Job requests")
                .containsEntry("name", "nvidia.com/gpu").containsEntry("replicas", 2));
        assertThat(timeSlicing).containsEntry("renameByDefault", false).containsEntry("failRequestsGreaterThanOne", true);
        assertThat(plugin).as("simulator-i then agent-i land on the GPU the pair already holds")
                .containsEntry("sharedDevicesAllocationPolicy", "packed")
                .containsEntry("deviceListStrategy", "volume-mounts");

        DaemonSet daemonSet = (DaemonSet) DeployFiles.objects(DeployFiles.deploy("cluster/nvidia-device-plugin.yml")).stream()
                .filter(DaemonSet.class::isInstance).findFirst().orElseThrow();
        var spec = daemonSet.getSpec().getTemplate().getSpec();
        assertThat(spec.getNodeSelector()).isEqualTo(map(gpuNodeGroup().get("labels")).entrySet().stream()
                .filter(label -> label.getKey().equals("leaderboard.carla.org/pool"))
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, label -> label.getValue().toString())));
        assertThat(taints(gpuNodeGroup())).allMatch(taint -> spec.getTolerations().stream().anyMatch(t -> tolerates(t, taint)));
        assertThat(spec.getContainers().get(0).getSecurityContext().getPrivileged()).as("volume-mounts needs no privilege").isNotEqualTo(true);
    }

    @Test
    void theGpuNodesRuntimeIgnoresNvidiaVisibleDevicesOfUnprivilegedContainers() {
        assertThat(list(gpuNodeGroup().get("preBootstrapCommands"))).map(Object::toString).containsExactlyInAnyOrder(
                "nvidia-ctk config --in-place --set accept-nvidia-visible-devices-envvar-when-unprivileged=false",
                "nvidia-ctk config --in-place --set accept-nvidia-visible-devices-as-volume-mounts=true");
    }

    @Test
    void kueuesGpuQuotaCountsTheSlicesOfTheGroupsLargestSize() {
        GenericKubernetesResource clusterQueue = (GenericKubernetesResource) DeployFiles.objects(
                DeployFiles.deploy("submissions/kueue/gpu-quota.yml")).stream()
                .filter(object -> object.getKind().equals("ClusterQueue")).findFirst().orElseThrow();
        Object gpuQuota = list(map(list(map(list(map(clusterQueue.getAdditionalProperties().get("spec")).get("resourceGroups"))
                .get(0)).get("flavors")).get(0)).get("resources")).stream().map(CloudFormationTemplate::map)
                .filter(resource -> "nvidia.com/gpu".equals(resource.get("name"))).findFirst().orElseThrow().get("nominalQuota");

        assertThat(gpuQuota).isEqualTo(String.valueOf((Integer) gpuNodeGroup().get("maxSize") * G5_12XLARGE_GPUS * timeSlicingReplicas()));
    }

    /** A g5.12xlarge's GPUs (4 NVIDIA A10G). */
    private static final int G5_12XLARGE_GPUS = 4;

    private static int timeSlicingReplicas() {
        return (Integer) map(list(map(map(devicePluginConfig().get("sharing")).get("timeSlicing")).get("resources")).get(0))
                .get("replicas");
    }

    private static Map<String, Object> devicePluginConfig() {
        io.fabric8.kubernetes.api.model.ConfigMap configMap = DeployFiles.objects(DeployFiles.deploy("cluster/nvidia-device-plugin.yml"))
                .stream().filter(io.fabric8.kubernetes.api.model.ConfigMap.class::isInstance)
                .map(io.fabric8.kubernetes.api.model.ConfigMap.class::cast).findFirst().orElseThrow();
        return new Yaml().load(configMap.getData().get("config.yaml"));
    }

    private Map<String, Object> gpuNodeGroup() {
        return list(cluster.get("managedNodeGroups")).stream().map(CloudFormationTemplate::map)
                .filter(group -> "g5.12xlarge".equals(group.get("instanceType"))).findFirst()
                .orElseThrow(() -> new AssertionError("no g5.12xlarge node group"));
    }

    private Map<String, Object> spotGpuNodeGroup() {
        return list(cluster.get("managedNodeGroups")).stream().map(CloudFormationTemplate::map)
                .filter(group -> Boolean.TRUE.equals(group.get("spot"))).findFirst()
                .orElseThrow(() -> new AssertionError("no Spot node group"));
    }

    private static List<Taint> taints(Map<String, Object> nodeGroup) {
        return list(nodeGroup.get("taints")).stream()
                .map(taint -> Serialization.unmarshal(Serialization.asJson(taint), Taint.class)).toList();
    }

    /** The scheduler's rule: same effect (or any), and the key (or every key) with Exists, or key and value with Equal. */
    static boolean tolerates(Toleration toleration, Taint taint) {
        boolean effect = toleration.getEffect() == null || toleration.getEffect().isEmpty() || toleration.getEffect().equals(taint.getEffect());
        if (!effect) {
            return false;
        }
        if ("Exists".equals(toleration.getOperator())) {
            return toleration.getKey() == null || toleration.getKey().isEmpty() || toleration.getKey().equals(taint.getKey());
        }
        return taint.getKey().equals(toleration.getKey()) && String.valueOf(taint.getValue()).equals(String.valueOf(toleration.getValue()));
    }

    @Test
    void theToleranceRuleItselfRejectsOtherKeysAndEffects() {
        Taint gpu = Serialization.unmarshal("{\"key\": \"nvidia.com/gpu\", \"value\": \"true\", \"effect\": \"NoSchedule\"}", Taint.class);
        Taint other = Serialization.unmarshal("{\"key\": \"dedicated\", \"value\": \"x\", \"effect\": \"NoSchedule\"}", Taint.class);
        Taint noExecute = Serialization.unmarshal("{\"key\": \"nvidia.com/gpu\", \"value\": \"true\", \"effect\": \"NoExecute\"}", Taint.class);

        assertThat(tolerates(JOB_TOLERATION, gpu)).isTrue();
        assertThat(tolerates(JOB_TOLERATION, other)).isFalse();
        assertThat(tolerates(JOB_TOLERATION, noExecute)).isFalse();
    }

}
