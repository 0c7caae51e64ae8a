package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;

/** An emptyDir is its pod's: another pod of the Job (a replacement, a resume's) must not see the earlier files. */
class PodVolumesTests {

    @TempDir
    Path work;

    @Test
    void anotherPodOfTheJobStartsWithEmptyVolumesAndTheSameLogs() throws Exception {
        PodSpec spec = new PodSpecBuilder().addNewVolume().withName("logs").withNewEmptyDir().endEmptyDir().endVolume()
                .build();
        var first = new PodLayout(work, "team-1-map-7", "team-1-map-7-bcdfg", spec);
        Path status = Files.createDirectories(first.podFolder().resolve("volumes/logs/containers-status"));
        Files.writeString(status.resolve("agent-1.crash0"), "");
        Files.writeString(first.logFile("agent-1"), "first pod\n");

        var replacement = new PodLayout(work, "team-1-map-7", "team-1-map-7-hjklm", spec);

        assertThat(replacement.podFolder().resolve("volumes/logs")).isEmptyDirectory();
        assertThat(status.resolve("agent-1.crash0")).as("the first pod's volume stays for a look").exists();
        assertThat(replacement.logFile("agent-1")).isEqualTo(first.logFile("agent-1")).hasContent("first pod");
    }
}
