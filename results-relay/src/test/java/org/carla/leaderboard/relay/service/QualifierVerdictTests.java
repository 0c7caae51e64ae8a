package org.carla.leaderboard.relay.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.junit.jupiter.api.Test;

class QualifierVerdictTests {

    private static final TrackSpec QUALIFIER = new TrackSpec("leaderboard-20", "SENSORS_QUALIFIER", "bucket",
            LeaderboardVersion.V2_0, "/routes.xml", null, 20, 1, 4, "g5.12xlarge", "sim", "lb", "pr", "vulkan", 3600, 4, false, "SENSORS",
            Map.of("driving_score", 5.0, "route_completion", 20.0), null, null, 1);

    @Test
    void passesWhenEveryThresholdIsExceeded() {
        var verdict = QualifierVerdict.judge(QUALIFIER, Map.of("driving_score", 12.5, "route_completion", 64.0));

        assertThat(verdict.passed()).isTrue();
        assertThat(verdict.text()).startsWith("Congratulations!").contains("SENSORS track")
                .containsPattern("driving_score\\s+12\\.500\\s+5\\.000\\s+passed")
                .containsPattern("route_completion\\s+64\\.000\\s+20\\.000\\s+passed");
    }

    @Test
    void failsWhenOneThresholdIsOnlyReached() {
        var verdict = QualifierVerdict.judge(QUALIFIER, Map.of("driving_score", 5.0, "route_completion", 64.0));

        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.text()).startsWith("Your submission did not pass the SENSORS_QUALIFIER qualifier")
                .containsPattern("driving_score\\s+5\\.000\\s+5\\.000\\s+not passed");
    }

    @Test
    void failsWhenAMetricIsMissing() {
        var metrics = new HashMap<String, Double>();
        metrics.put("driving_score", 80.0);
        metrics.put("route_completion", null);

        var verdict = QualifierVerdict.judge(QUALIFIER, metrics);

        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.text()).containsPattern("route_completion\\s+-\\s+20\\.000\\s+not passed");
    }
}
