package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

/**
 * Every manifest an operator applies from deploy/ parses into Kubernetes objects without a field the schema does not
 * know, names its namespace when it is namespaced, and is accepted by the API server (fabric8's mock in CRUD mode)
 * and read back. The generated service manifests are included once they are committed.
 */
class ManifestsAcceptedByApiServerTests {

    // Kueue's kinds, as its CRDs install them; the cluster must have Kueue for deploy/submissions/kueue/.
    private static final List<CustomResourceDefinitionContext> KUEUE = List.of(
            kueue("ResourceFlavor", "resourceflavors", "Cluster"),
            kueue("ClusterQueue", "clusterqueues", "Cluster"),
            kueue("LocalQueue", "localqueues", "Namespaced"));

    private static KubernetesMockServer server;
    private static KubernetesClient client;

    @BeforeAll
    static void startApiServer() throws UnknownHostException {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(KUEUE), false);
        server.init(InetAddress.getByName("127.0.0.1"), 0);
        KUEUE.forEach(server::expectCustomResource);
        client = server.createClient();
    }

    @AfterAll
    static void stopApiServer() {
        client.close();
        server.destroy();
    }

    static Stream<Path> manifests() {
        return Stream.of("services", "submissions", "cluster", "kubernetes")
                .flatMap(folder -> DeployFiles.yamlFilesUnder(DeployFiles.deploy(folder)).stream())
                // eksctl's ClusterConfig is not a Kubernetes object (ClusterTests reads it)
                .filter(file -> !file.endsWith(Path.of("cluster", "cluster.yaml")));
    }

    @Test
    void theManifestFoldersAreNotEmpty() {
        assertThat(manifests().map(file -> DeployFiles.deploy("").relativize(file).toString()))
                .contains("services/leaderboard-config.yml", "services/network-policies.yml", "submissions/network-policies.yml",
                        "submissions/submission-worker.yml", "submissions/kueue/gpu-quota.yml",
                        "cluster/cluster-autoscaler.yml", "cluster/fluent-bit.yml", "cluster/cloudwatch-agent-prometheus.yml",
                        "cluster/nvidia-device-plugin.yml");
    }

    @ParameterizedTest
    @MethodSource("manifests")
    void everyObjectIsKnownToTheSchemaAndAcceptedByTheApiServer(Path file) {
        List<HasMetadata> objects = DeployFiles.objects(file);
        assertThat(objects).as(file + " holds no object").isNotEmpty();
        for (HasMetadata object : objects) {
            String what = file.getFileName() + ": " + object.getKind() + " " + object.getMetadata().getName();
            assertThat(object.getMetadata().getName()).as(what + " has no name").isNotBlank();
            assertThat(UnknownFields.of(object)).as(what + ": fields the Kubernetes schema does not know").isEmpty();
            if (isNamespaced(object)) {
                assertThat(object.getMetadata().getNamespace())
                        .as(what + " must name its namespace, or kubectl puts it wherever the context points").isNotBlank();
            }

            client.resource(object).create();

            HasMetadata stored = client.resource(object).get();
            assertThat(stored).as(what + " was not stored").isNotNull();
            assertThat(stored.getKind()).isEqualTo(object.getKind());
        }
    }

    private static boolean isNamespaced(HasMetadata object) {
        if (object instanceof GenericKubernetesResource) {
            return KUEUE.stream().anyMatch(kind -> kind.getKind().equals(object.getKind()) && kind.getScope().equals("Namespaced"));
        }
        return object instanceof Namespaced;
    }

    private static CustomResourceDefinitionContext kueue(String kind, String plural, String scope) {
        return new CustomResourceDefinitionContext.Builder()
                .withGroup("kueue.x-k8s.io").withVersion("v1beta1").withKind(kind).withPlural(plural).withScope(scope)
                .build();
    }
}
