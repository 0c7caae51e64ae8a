package org.carla.leaderboard.podruntime.init;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResumeDownloadTests {

    @TempDir
    Path logs;

    @Test
    void aDownloadFailingHalfwayLeavesTheVolumeAsItWas() throws IOException {
        Files.createDirectories(logs.resolve("agent/agent1"));

        assertThatThrownBy(() -> ResumeDownload.run(logs, staging -> {
            Files.createDirectories(staging.resolve("agent/agent1"));
            Files.writeString(staging.resolve("agent/agent1/agent_results.json"), "{}");
            throw new IOException("connection reset");
        })).hasMessage("connection reset");

        try (Stream<Path> all = Files.walk(logs)) {
            assertThat(all.map(logs::relativize).map(Path::toString)).containsExactlyInAnyOrder("", "agent", "agent/agent1");
        }
    }

    @Test
    void aCompleteDownloadIsMovedIntoPlaceOverTheEmptyLayout() throws IOException {
        Files.createDirectories(logs.resolve("agent/agent1"));
        Files.createDirectories(logs.resolve(ResumeDownload.STAGING_PREFIX + "killed-earlier/agent"));

        long count = ResumeDownload.run(logs, staging -> {
            Files.createDirectories(staging.resolve("agent/agent1"));
            Files.writeString(staging.resolve("agent/agent1/agent_results.json"), "{}");
            Files.createDirectories(staging.resolve("evalai"));
            Files.writeString(staging.resolve("evalai/stdout.txt"), "hello");
            return 2;
        });

        assertThat(count).isEqualTo(2);
        assertThat(logs.resolve("agent/agent1/agent_results.json")).hasContent("{}");
        assertThat(logs.resolve("evalai/stdout.txt")).hasContent("hello");
        try (Stream<Path> top = Files.list(logs)) {
            assertThat(top.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("agent", "evalai");
        }
    }
}
