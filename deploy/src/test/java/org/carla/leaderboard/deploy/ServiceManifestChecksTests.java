package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.Role;

/**
 * The checks GeneratedManifestsTests applies to the committed service manifests, run on what quarkus-kubernetes
 * really generated for a job-launcher with the keys of deploy/README.md (fixtures), so they are known to work before
 * the services' manifests exist.
 */
class ServiceManifestChecksTests {

    @Test
    void aLauncherGivenTheEvalAiTokenIsCaught() {
        assertThat(ServiceManifestChecks.workloadsReadingSecret(fixture("job-launcher-given-the-evalai-token.yml"), "evalai-token"))
                .containsExactly("job-launcher");
    }

    @Test
    void theLauncherAsGeneratedCannotReadTheEvalAiToken() {
        assertThat(ServiceManifestChecks.workloadsReadingSecret(fixture("job-launcher-generated.yml"), "evalai-token")).isEmpty();
    }

    @Test
    void aSecretVolumeOrEnvFromCountsAsReading() {
        List<HasMetadata> objects = List.of(io.fabric8.kubernetes.client.utils.Serialization.unmarshal("""
                apiVersion: batch/v1
                kind: Job
                metadata: {name: sneaky, namespace: submissions}
                spec:
                  template:
                    spec:
                      restartPolicy: Never
                      containers: [{name: agent-1, image: team/agent:1, envFrom: [{secretRef: {name: evalai-token}}]}]
                """), io.fabric8.kubernetes.client.utils.Serialization.unmarshal("""
                apiVersion: v1
                kind: Pod
                metadata: {name: mounted, namespace: submissions}
                spec:
                  containers: [{name: logcopy, image: pod-runtime:1}]
                  volumes: [{name: t, projected: {sources: [{secret: {name: evalai-token}}]}}]
                """));

        assertThat(ServiceManifestChecks.workloadsReadingSecret(objects, "evalai-token")).containsExactly("mounted", "sneaky");
    }

    @Test
    void theGeneratedRoleLivesInTheSubmissionsNamespaceWithTheLaunchersRules() {
        Role role = ServiceManifestChecks.ofKind(fixture("job-launcher-generated.yml"), Role.class).get(0);

        assertThat(role.getMetadata().getNamespace()).isEqualTo("submissions");
        assertThat(ServiceManifestChecks.rules(role)).isEqualTo(Map.of(
                "batch/jobs", Set.of("create", "get", "list", "watch", "delete"),
                "/pods", Set.of("get", "list")));
    }

    private static List<HasMetadata> fixture(String name) {
        try {
            return DeployFiles.objects(Path.of(ServiceManifestChecksTests.class.getResource("/fixtures/" + name).toURI()));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
