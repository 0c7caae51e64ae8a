package org.carla.leaderboard.localstack.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.carla.leaderboard.localstack.ServiceAccount;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuiltPropertiesTests {

    @TempDir
    Path project;

    private BuiltProperties built(String text) throws Exception {
        Path classes = Files.createDirectories(project.resolve("relay/target/classes"));
        Files.writeString(classes.resolve("application.properties"), text);
        return BuiltProperties.of(project, "relay");
    }

    @Test
    void thePodsMemoryLimitBecomesTheMaxRamAServiceSizesItsHeapFrom() throws Exception {
        assertThat(built("quarkus.kubernetes.resources.limits.memory=192Mi\n").maxRamOption())
                .isEqualTo("-XX:MaxRAM=192m");
        assertThat(built("quarkus.kubernetes.resources.limits.memory= 1Gi\n").maxRamOption())
                .isEqualTo("-XX:MaxRAM=1024m");
        assertThat(built("quarkus.kubernetes.resources.limits.memory=500M\n").maxRamOption())
                .isEqualTo("-XX:MaxRAM=500000000");
    }

    @Test
    void aMissingOrUnreadableLimitIsAClearErrorNamingTheKeyAndTheFile() throws Exception {
        assertThatThrownBy(() -> built("quarkus.kubernetes.namespace=leaderboard\n").maxRamOption())
                .hasMessageContaining("quarkus.kubernetes.resources.limits.memory").hasMessageContaining("relay");
        assertThatThrownBy(() -> built("quarkus.kubernetes.resources.limits.memory=lots\n").maxRamOption())
                .hasMessageContaining("'lots'");
        assertThatThrownBy(() -> BuiltProperties.of(project, "unbuilt")).hasMessageContaining("unbuilt's built");
    }

    @Test
    void theServiceAccountIsTheOneItsManifestNames() throws Exception {
        assertThat(built("quarkus.kubernetes.namespace=leaderboard\nquarkus.kubernetes.service-account=results-relay\n")
                .serviceAccount()).isEqualTo(new ServiceAccount("leaderboard", "results-relay"));
        assertThatThrownBy(() -> built("quarkus.kubernetes.namespace=leaderboard\n").serviceAccount())
                .hasMessageContaining("names no ServiceAccount");
    }
}
