package org.carla.leaderboard.launcher.job;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.launcher.config.LauncherConfig;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * The seeds' configuration: Leaderboard 2.0 SENSORS (20 routes, 1 repetition, 4 pairs on a g5.12xlarge, 48 h, 4
 * resumes) and the launcher's production defaults, read from the module's own application.properties.
 */
public final class SeedsConfiguration {

    public static final String PROGRESS_REPORTS_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/progress-reports";

    private SeedsConfiguration() {
    }

    public static LauncherConfig launcherConfig() {
        return launcherConfig(Map.of());
    }

    public static LauncherConfig launcherConfig(Map<String, String> overrides) {
        var values = new HashMap<String, String>();
        values.put("queues.progress-reports.url", PROGRESS_REPORTS_URL);
        values.putAll(overrides);
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .addDefaultInterceptors()
                .withMapping(LauncherConfig.class)
                .withSources(new PropertiesConfigSource(values, "test", 500))
                .withSources(new PropertiesConfigSource(applicationProperties(), "application.properties", 250))
                .build();
        return config.getConfigMapping(LauncherConfig.class);
    }

    public static TrackSpec sensorsTrack() {
        return new TrackSpec("leaderboard-20", "SENSORS", "carla-leaderboard-20", LeaderboardVersion.V2_0,
                "/workspace/leaderboard/data/routes_testing.xml", null, 20, 1, 4, "g5.12xlarge",
                "carla-leaderboard/carla:0.9.15", "carla-leaderboard/leaderboard-20:latest",
                "carla-leaderboard/pod-runtime:latest", "vulkan", 172_800, 4, false, null, Map.of(), null, null, 1);
    }

    public static SubmissionIdentity submission(String teamName) {
        return new SubmissionIdentity(412_977, 2054, 2077, 5817, teamName, "leaderboard-20", "SENSORS");
    }

    public static LaunchRequest request() {
        return LaunchRequest.of(submission("Team Ætna"), 1,
                "342236305043.dkr.ecr.us-west-2.amazonaws.com/bm-586a194d-team-5817:v3", false, sensorsTrack(),
                Instant.parse("2026-11-21T10:15:30Z"));
    }

    private static Map<String, String> applicationProperties() {
        URL resource = SeedsConfiguration.class.getClassLoader().getResource("application.properties");
        var properties = new Properties();
        try (InputStream in = resource.openStream()) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var values = new HashMap<String, String>();
        // Production values only: the profile-prefixed keys belong to %dev and %test.
        properties.stringPropertyNames().stream().filter(key -> !key.startsWith("%"))
                .forEach(key -> values.put(key, properties.getProperty(key)));
        return values;
    }
}
