package org.carla.leaderboard.domain.pod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class PodEnvironmentTests {

    @Test
    void theLogsVolumeAndTheStatusFilesDefaultToWhereTheJobMountsThem() {
        assertThat(PodEnvironment.logsDir(Map.of())).isEqualTo(Path.of("/tmp/logs"));
        assertThat(PodEnvironment.statusDir(Map.of())).isEqualTo(Path.of("/tmp/logs/containers-status"));
        assertThat(PodEnvironment.statusDir(Map.of("LOGS_DIR", "/elsewhere"))).isEqualTo(Path.of("/elsewhere/containers-status"));
        assertThat(PodEnvironment.statusDir(Map.of("LOGS_DIR", "/a", "STATUS_DIR", "/b"))).isEqualTo(Path.of("/b"));
    }

    @Test
    void durationsAreIsoOrSeconds() {
        assertThat(PodEnvironment.duration(Map.of("W", "PT90S"), "W")).hasValue(Duration.ofSeconds(90));
        assertThat(PodEnvironment.duration(Map.of("W", "2.5"), "W")).hasValue(Duration.ofMillis(2500));
        assertThatThrownBy(() -> PodEnvironment.duration(Map.of("W", "ten minutes"), "W")).hasMessageContaining("W must be");
        assertThatThrownBy(() -> PodEnvironment.duration(Map.of("W", "-1"), "W")).hasMessageContaining("negative");
    }

    @Test
    void aFlagIsSetUnlessEmptyOrExplicitlyFalse() {
        assertThat(List.of("1", "true", "yes", "resume")).allMatch(v -> PodEnvironment.flag(Map.of("RESUME", v), "RESUME"));
        assertThat(List.of("", " ", "false", "0", "no")).noneMatch(v -> PodEnvironment.flag(Map.of("RESUME", v), "RESUME"));
        assertThat(PodEnvironment.flag(Map.of(), "RESUME")).isFalse();
    }
}
