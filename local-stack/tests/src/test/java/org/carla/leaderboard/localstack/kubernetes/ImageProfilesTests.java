package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ImageProfilesTests {

    @Test
    void readsProfilesInOrderWithCommandsAndEnv() {
        List<ImageProfile> profiles = ImageProfiles.fromProperties(Map.of(
                "images.runtime.image", "carla-leaderboard/pod-runtime:.*",
                "images.runtime.command./usr/local/bin/pod-runtime", "java -jar /opt/x/quarkus-run.jar",
                "images.runtime.override-env.QUARKUS_SQS_ENDPOINT_OVERRIDE", "http://127.0.0.1:9324",
                "images.crash.image", "participant/.*:crash",
                "images.crash.order", "1",
                "images.crash.env.EVALUATOR_STANDIN_CRASH_AT_ROUTE", "2",
                "images.crash.entrypoint", "[\"/my dir/run\", \"--fast\"]",
                "images.crash.user", "1000:1001",
                "other.key", "ignored"), "images.");

        assertThat(profiles).hasSize(2);
        ImageProfile crash = profiles.get(0);
        assertThat(crash.matches("participant/team-1:crash")).isTrue();
        assertThat(crash.matches("participant/team-1:crashed")).isFalse();
        assertThat(crash.entrypoint()).containsExactly("/my dir/run", "--fast");
        assertThat(crash.env()).containsEntry("EVALUATOR_STANDIN_CRASH_AT_ROUTE", "2");
        assertThat(crash.user()).contains(new ImageProfile.User(1000, 1001));
        ImageProfile runtime = profiles.get(1);
        assertThat(runtime.commands()).containsEntry("/usr/local/bin/pod-runtime",
                List.of("java", "-jar", "/opt/x/quarkus-run.jar"));
        assertThat(runtime.overrideEnv()).containsEntry("QUARKUS_SQS_ENDPOINT_OVERRIDE", "http://127.0.0.1:9324");
        assertThat(runtime.user()).isEmpty();
    }

    @Test
    void refusesIncompleteOrUnknownSettings() {
        assertThatThrownBy(() -> ImageProfiles.fromProperties(Map.of("images.a.env.X", "1"), "images."))
                .hasMessageContaining("images.a.image is required");
        assertThatThrownBy(() -> ImageProfiles.fromProperties(Map.of("images.a.image", "x", "images.a.cmd", "y"),
                "images.")).hasMessageContaining("unknown image profile setting images.a.cmd");
        assertThatThrownBy(() -> ImageProfiles.fromProperties(Map.of("images.a.image", "x",
                "images.a.command./bin/x", " "), "images.")).hasMessageContaining("must name a program");
        assertThatThrownBy(() -> ImageProfiles.fromProperties(Map.of("images.a.image", "x", "images.a.user", "carla"),
                "images.")).hasMessageContaining("uid or uid:gid");
    }
}
