package org.carla.leaderboard.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/** The manifest {@code package} generates, as an operator applies it. */
class KubernetesManifestIT {

    private static final List<JsonNode> RESOURCES = new ArrayList<>();

    @BeforeAll
    static void read() throws IOException {
        Path manifest = Path.of("target", "kubernetes", "kubernetes.yml");
        var mapper = new ObjectMapper(new YAMLFactory());
        try (var parser = mapper.getFactory().createParser(Files.readString(manifest))) {
            mapper.readValues(parser, JsonNode.class).forEachRemaining(RESOURCES::add);
        }
    }

    @Test
    void deploymentRunsUnderItsOwnServiceAccountWithProbesAndResources() {
        JsonNode pod = resource("Deployment", "ingest-service").path("spec").path("template").path("spec");
        assertThat(pod.path("serviceAccountName").asText()).isEqualTo("ingest-service");
        JsonNode container = pod.path("containers").get(0);
        assertThat(container.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/q/health/live");
        assertThat(container.path("readinessProbe").path("httpGet").path("path").asText())
                .isEqualTo("/q/health/ready");
        assertThat(container.path("resources").path("requests").path("memory").asText()).isNotEmpty();
        assertThat(container.path("resources").path("limits").path("memory").asText()).isNotEmpty();
        assertThat(container.path("resources").path("limits").path("cpu").asText()).isNotEmpty();
        assertThat(resource("ServiceAccount", "ingest-service").path("automountServiceAccountToken").asBoolean(true))
                .isFalse();
    }

    @Test
    void configurationComesFromTheConfigMapAndTheTokenFromTheSecret() {
        JsonNode pod = resource("Deployment", "ingest-service").path("spec").path("template").path("spec");
        assertThat(pod.path("volumes").findValuesAsText("name")).contains("leaderboard-config");
        JsonNode container = pod.path("containers").get(0);
        assertThat(env(container, "SMALLRYE_CONFIG_LOCATIONS").path("value").asText()).isEqualTo("/mnt/app-config-map");
        JsonNode token = env(container, "EVALAI_TOKEN");
        assertThat(token.has("value")).as("the token is never written into the manifest").isFalse();
        assertThat(token.path("valueFrom").path("secretKeyRef").path("name").asText()).isEqualTo("evalai-token");
    }

    @Test
    void runsInTheServicesNamespaceUnprivilegedWithItsIamRole() {
        JsonNode deployment = resource("Deployment", "ingest-service");
        assertThat(deployment.path("metadata").path("namespace").asText()).isEqualTo("leaderboard");
        JsonNode pod = deployment.path("spec").path("template").path("spec");
        assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
        JsonNode container = pod.path("containers").get(0);
        assertThat(container.path("securityContext").path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
        assertThat(resource("ServiceAccount", "ingest-service").path("metadata").path("annotations")
                .path("eks.amazonaws.com/role-arn").asText()).endsWith(":role/carla-leaderboard-ingest-service");
    }

    private static JsonNode env(JsonNode container, String name) {
        for (JsonNode env : container.path("env")) {
            if (env.path("name").asText().equals(name)) {
                return env;
            }
        }
        throw new AssertionError("no env " + name + " in the container");
    }

    private static JsonNode resource(String kind, String name) {
        return RESOURCES.stream()
                .filter(r -> r.path("kind").asText().equals(kind) && r.path("metadata").path("name").asText().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in the manifest"));
    }
}
