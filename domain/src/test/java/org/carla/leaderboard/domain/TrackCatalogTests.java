package org.carla.leaderboard.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.carla.leaderboard.domain.track.EvaluationConfig;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.junit.jupiter.api.Test;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

class TrackCatalogTests {

    static TrackCatalog catalog(Map<String, String> overrides) {
        var config = new SmallRyeConfigBuilder()
                .addDefaultSources()
                .addDiscoveredConverters()
                .withSources(new PropertiesConfigSource(overrides, "test", 500))
                .withMapping(EvaluationConfig.class)
                .build();
        return new TrackCatalog(config.getConfigMapping(EvaluationConfig.class));
    }

    @Test
    void theShippedDefaultsDescribeBothPublicLeaderboards() {
        var catalog = catalog(Map.of());
        var sensors20 = catalog.forPhase(2077).orElseThrow();
        assertThat(sensors20.leaderboard()).isEqualTo("leaderboard-20");
        assertThat(sensors20.track()).isEqualTo("SENSORS");
        assertThat(sensors20.workerPairs()).isEqualTo(4);
        assertThat(sensors20.instanceType()).isEqualTo("g5.12xlarge");
        assertThat(sensors20.renderer()).isEqualTo("vulkan");
        assertThat(sensors20.bucket()).isEqualTo("carla-leaderboard-20");
        assertThat(catalog.requiresQualification(2077)).isTrue();
        assertThat(sensors20.leaderboardVersion()).isEqualTo(LeaderboardVersion.V2_0);
        assertThat(sensors20.scenariosFile()).isNull();
        var sensors10 = catalog.forPhase(1187).orElseThrow();
        assertThat(sensors10.renderer()).isEqualTo("opengl");
        assertThat(sensors10.leaderboardVersion()).isEqualTo(LeaderboardVersion.V1_0);
        assertThat(sensors10.scenariosFile()).endsWith(".json");
        var qualifier = catalog.forPhase(2075).orElseThrow();
        assertThat(qualifier.qualifiesFor()).isEqualTo("SENSORS");
        assertThat(qualifier.thresholds()).containsKey("driving_score");
        assertThat(catalog.forPhase(999)).isEmpty();
        assertThat(catalog.leaderboards()).containsOnlyKeys("leaderboard-10", "leaderboard-20");
    }

    @Test
    void aPhaseOnAnUnknownLeaderboardFailsAtStart() {
        assertThatThrownBy(() -> catalog(Map.of(
                "evaluation.phases.5.leaderboard", "leaderboard-99",
                "evaluation.phases.5.track", "SENSORS",
                "evaluation.phases.5.routes-file", "/r.xml",
                "evaluation.phases.5.routes", "3")))
                .hasMessageContaining("leaderboard-99");
    }

    @Test
    void aLeaderboardOneTrackWithoutItsScenariosFileIsRefusedAtStart() {
        assertThatThrownBy(() -> catalog(Map.of("evaluation.phases.1188.scenarios-file", "")))
                .hasMessageContaining("phase 1188 runs Leaderboard 1.0, whose evaluator requires a scenarios file"
                        + " (--scenarios): evaluation.phases.1188.scenarios-file is not set");
        assertThatThrownBy(() -> catalog(Map.of(
                "evaluation.phases.5.leaderboard", "leaderboard-10",
                "evaluation.phases.5.track", "SENSORS",
                "evaluation.phases.5.routes-file", "/r.xml",
                "evaluation.phases.5.routes", "3")))
                .hasMessageContaining("phase 5 runs Leaderboard 1.0").hasMessageContaining("is not set");
    }

    @Test
    void aLeaderboardTwoTrackWithAScenariosFileOrAnUnknownVersionIsRefusedAtStart() {
        assertThatThrownBy(() -> catalog(Map.of("evaluation.phases.2077.scenarios-file", "/s.json")))
                .hasMessageContaining("phase 2077 runs Leaderboard 2.0, whose evaluator takes no scenarios file");
        assertThatThrownBy(() -> catalog(Map.of("evaluation.leaderboards.leaderboard-20.version", "2")))
                .hasMessageContaining("evaluation.leaderboards.leaderboard-20.version: unknown Leaderboard version"
                        + " '2' (1.0, 2.0)");
    }

    @Test
    void aPhaseWithAScheduleClaimsFromTheRouteLedgerAndAnUnknownScheduleFailsAtStart() {
        var claimed = catalog(Map.of("evaluation.phases.2077.schedule", "dynamic")).forPhase(2077).orElseThrow();
        assertThat(claimed.claimsRoutes()).isTrue();
        assertThat(claimed.schedule()).isEqualTo("dynamic");
        assertThat(claimed.ledgerTable()).isEqualTo("route-ledger");
        assertThat(catalog(Map.of()).forPhase(2077).orElseThrow().claimsRoutes()).as("the seeds' layout").isFalse();

        assertThatThrownBy(() -> catalog(Map.of("evaluation.phases.2077.schedule", "fastest")))
                .hasMessageContaining("phase 2077 has schedule 'fastest': dynamic or static");
        assertThatThrownBy(() -> catalog(Map.of("evaluation.phases.2077.schedule", "static",
                "evaluation.phases.2077.routes-file", "/r.xml")))
                .hasMessageContaining("its routes file is in the Leaderboard volume");
    }

    @Test
    void aRunOfSeveralPodsClaimsFromTheLedgerAndAPhaseOfPodsWithoutAScheduleFailsAtStart() {
        var spread = catalog(Map.of("evaluation.phases.2077.schedule", "dynamic", "evaluation.phases.2077.pods", "4",
                "evaluation.phases.2077.worker-pairs", "1", "evaluation.phases.2077.instance-type", "g5.xlarge"))
                .forPhase(2077).orElseThrow();
        assertThat(spread.pods()).isEqualTo(4);
        assertThat(spread.runPairs()).isEqualTo(4);
        assertThat(catalog(Map.of()).forPhase(2077).orElseThrow().pods()).as("the seeds' layout").isEqualTo(1);

        assertThatThrownBy(() -> catalog(Map.of("evaluation.phases.2077.pods", "2")))
                .hasMessageContaining("phase 2077 has 2 pods, which claim their routes from one route ledger: it needs"
                        + " a schedule");
        assertThatThrownBy(() -> catalog(Map.of("evaluation.phases.2077.schedule", "dynamic",
                "evaluation.phases.2077.pods", "0"))).hasMessageContaining("phase 2077 has 0 pods: 1 to 64");
    }

    @Test
    void theGpusOfEveryPhasesInstanceTypeAreKnown() {
        var catalog = catalog(Map.of());
        assertThat(catalog.gpus("g5.12xlarge")).hasValue(4);
        assertThat(catalog.gpus("g5.48xlarge")).hasValue(8);
        assertThat(catalog.gpus("t3.micro")).isEmpty();
        assertThat(catalog.gpus(null)).isEmpty();
    }

    @Test
    void aPhaseOnAnInstanceTypeOfUnknownGpusFailsAtStart() {
        assertThatThrownBy(() -> catalog(Map.of("evaluation.phases.2077.instance-type", "p9.huge")))
                .hasMessageContaining("p9.huge").hasMessageContaining("evaluation.instance-gpus");
    }
}
