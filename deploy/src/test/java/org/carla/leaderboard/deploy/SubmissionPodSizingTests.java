package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.carla.leaderboard.domain.track.EvaluationConfig;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * A submission's pod fits the node its track runs on, limits included: one pod per GPU node, so the sum of its
 * containers' memory and CPU limits (job-launcher's {@code launcher.resources.*}, as the ConfigMap deploys them, times
 * the track's worker pairs) and the limits of the DaemonSets that run on GPU nodes stay within the node's allocatable
 * — capacity less what EKS reserves for the kubelet and the eviction threshold. A pod whose limits exceed it is
 * Burstable beyond the node: under memory pressure the kubelet evicts it, and the run restarts its routes elsewhere.
 */
class SubmissionPodSizingTests {

    /** What AWS sells: memory (GiB), vCPUs, and max pods with the VPC CNI (the EKS AMI's eni-max-pods table). */
    private record Instance(long memoryGib, int cpus, int maxPods) {
    }

    private static final Map<String, Instance> INSTANCES = Map.of("g5.12xlarge", new Instance(192, 48, 234));

    @Test
    void everyTracksPodFitsItsInstanceLimitsIncluded() throws IOException {
        Properties deployed = configMap();
        TrackCatalog catalog = new TrackCatalog(evaluation(deployed));
        Properties launcher = launcherConfig(deployed);

        for (TrackSpec track : catalog.tracksByPhase().values()) {
            Instance instance = INSTANCES.get(track.instanceType());
            assertThat(instance).as("the capacity of %s (add it to INSTANCES)", track.instanceType()).isNotNull();
            int pairs = track.effectiveWorkerPairs();
            for (String kind : List.of("request", "limit")) {
                BigDecimal memory = pod(launcher, "memory-" + kind, pairs).add(gpuDaemonSets("memory", kind));
                BigDecimal cpu = pod(launcher, "cpu-" + kind, pairs).add(gpuDaemonSets("cpu", kind));
                assertThat(memory).as("%s %s: memory %ss (bytes) on a %s", track.leaderboard(), track.track(), kind,
                        track.instanceType()).isLessThanOrEqualTo(allocatableMemory(instance));
                assertThat(cpu).as("%s %s: CPU %ss on a %s", track.leaderboard(), track.track(), kind,
                        track.instanceType()).isLessThanOrEqualTo(allocatableCpu(instance));
            }
        }
    }

    /**
     * The pod's effective amount, as the scheduler counts it: its containers together (each pair's simulator and
     * agent, and logcopy), or its largest init container if that is more.
     */
    private static BigDecimal pod(Properties launcher, String key, int pairs) {
        BigDecimal running = amount(launcher, "simulator", key).add(amount(launcher, "agent", key))
                .multiply(BigDecimal.valueOf(pairs)).add(amount(launcher, "logcopy", key));
        return running.max(amount(launcher, "install", key)).max(amount(launcher, "init", key));
    }

    private static BigDecimal amount(Properties launcher, String role, String key) {
        String value = launcher.getProperty("launcher.resources." + role + "." + key);
        assertThat(value).as("launcher.resources.%s.%s", role, key).isNotNull();
        return Quantity.getAmountInBytes(new Quantity(value));
    }

    /** Memory less EKS's kube-reserved (255 MiB + 11 MiB a pod) and the kubelet's eviction threshold (100 MiB). */
    private static BigDecimal allocatableMemory(Instance instance) {
        long mib = instance.memoryGib() * 1024 - 255 - 11L * instance.maxPods() - 100;
        return BigDecimal.valueOf(mib * 1024 * 1024);
    }

    /** vCPUs less EKS's kube-reserved: 6 % of the first core, 1 % of the second, 0.5 % of two more, 0.25 % of the rest. */
    private static BigDecimal allocatableCpu(Instance instance) {
        double reserved = 0.06 + 0.01 + 0.005 * 2 + 0.0025 * (instance.cpus() - 4);
        return BigDecimal.valueOf(instance.cpus() - reserved);
    }

    /** What deploy/cluster's DaemonSets that tolerate the GPU nodes' taint ask for (their own requests or limits). */
    private static BigDecimal gpuDaemonSets(String resource, String kind) {
        BigDecimal total = BigDecimal.ZERO;
        for (var file : DeployFiles.yamlFilesUnder(DeployFiles.deploy("cluster"))) {
            if (file.getFileName().toString().equals("cluster.yaml")) {
                continue;
            }
            for (var object : DeployFiles.objects(file)) {
                if (object instanceof DaemonSet daemonSet && toleratesGpuNodes(daemonSet)) {
                    for (Container container : daemonSet.getSpec().getTemplate().getSpec().getContainers()) {
                        var resources = container.getResources();
                        Map<String, Quantity> amounts = resources == null ? null
                                : kind.equals("request") ? resources.getRequests() : resources.getLimits();
                        if (amounts != null && amounts.containsKey(resource)) {
                            total = total.add(Quantity.getAmountInBytes(amounts.get(resource)));
                        }
                    }
                }
            }
        }
        return total;
    }

    private static boolean toleratesGpuNodes(DaemonSet daemonSet) {
        var tolerations = daemonSet.getSpec().getTemplate().getSpec().getTolerations();
        return tolerations != null && tolerations.stream().anyMatch(t -> "Exists".equals(t.getOperator())
                && (t.getKey() == null || "nvidia.com/gpu".equals(t.getKey())));
    }

    private static Properties configMap() throws IOException {
        ConfigMap configMap = (ConfigMap) DeployFiles.objects(DeployFiles.deploy("services/leaderboard-config.yml")).get(0);
        Properties config = new Properties();
        config.load(new StringReader(configMap.getData().get("application.properties")));
        return config;
    }

    /** job-launcher's own settings, with what the ConfigMap deploys over them. */
    private static Properties launcherConfig(Properties deployed) throws IOException {
        Properties launcher = new Properties();
        launcher.load(new StringReader(DeployFiles.read(DeployFiles.root()
                .resolve("job-launcher/src/main/resources/application.properties"))));
        deployed.stringPropertyNames().forEach(key -> launcher.setProperty(key, deployed.getProperty(key)));
        return launcher;
    }

    /** The domain's catalog as the deployed services read it: its shipped defaults and the ConfigMap's evaluation.*. */
    private static EvaluationConfig evaluation(Properties deployed) {
        Map<String, String> overrides = new HashMap<>();
        deployed.stringPropertyNames().stream().filter(key -> key.startsWith("evaluation."))
                .forEach(key -> overrides.put(key, deployed.getProperty(key)));
        return new SmallRyeConfigBuilder().addDefaultSources().addDiscoveredConverters()
                .withSources(new PropertiesConfigSource(overrides, "leaderboard-config", 500))
                .withMapping(EvaluationConfig.class).build().getConfigMapping(EvaluationConfig.class);
    }
}
