package org.carla.leaderboard.podruntime.role;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

class PairSettingsTests {

    @Test
    void defaultsAreTheSeedsTimes() {
        PairSettings settings = PairSettings.from(Map.of("WORKER_ID", "3"));

        assertThat(settings.pair()).isEqualTo(3);
        assertThat(settings.carlaPort()).isEqualTo(2000);
        assertThat(settings.partnerWait()).isEqualTo(Duration.ofMinutes(10));
        assertThat(settings.maxIdle()).isEqualTo(Duration.ofSeconds(800));
    }

    @Test
    void thePairComesFromTheGpuWhenWorkerIdIsUnset() {
        assertThat(PairSettings.from(Map.of("NVIDIA_VISIBLE_DEVICES", "2")).pair()).isEqualTo(3);
        assertThat(PairSettings.from(Map.of("NVIDIA_VISIBLE_DEVICES", "2", "WORKER_ID", "1")).pair()).isEqualTo(1);
        assertThatThrownBy(() -> PairSettings.from(Map.of("NVIDIA_VISIBLE_DEVICES", "all")))
                .hasMessageContaining("NVIDIA_VISIBLE_DEVICES");
        assertThatThrownBy(() -> PairSettings.from(Map.of("WORKER_ID", "0"))).hasMessageContaining("WORKER_ID");
    }

    @Test
    void durationsAreIsoOrSeconds() {
        PairSettings settings = PairSettings.from(Map.of("WORKER_ID", "1", "PARTNER_WAIT", "PT90S", "MAX_IDLE", "2.5"));

        assertThat(settings.partnerWait()).isEqualTo(Duration.ofSeconds(90));
        assertThat(settings.maxIdle()).isEqualTo(Duration.ofMillis(2500));
        assertThatThrownBy(() -> PairSettings.from(Map.of("WORKER_ID", "1", "MAX_IDLE", "ten minutes")))
                .hasMessageContaining("MAX_IDLE");
    }
}
