package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;

/** An emptyDir lives as long as its pod: a later Job of the same name (a resume) must not see the earlier files. */
class PodVolumesTests {

    @TempDir
    Path work;

    @Test
    void aLaterPodOfAJobWithTheSameNameStartsWithEmptyVolumesAndKeepsTheLogs() throws Exception {
        PodSpec spec = new PodSpecBuilder().addNewVolume().withName("logs").withNewEmptyDir().endEmptyDir().endVolume()
                .build();
        var first = new PodLayout(work, "team-1-map-7", spec);
        Path status = Files.createDirectories(work.resolve("team-1-map-7/volumes/logs/containers-status"));
        Files.writeString(status.resolve("agent-1.crash0"), "");
        Files.writeString(first.logFile("agent-1"), "first pod\n");

        new PodLayout(work, "team-1-map-7", spec);

        assertThat(work.resolve("team-1-map-7/volumes/logs")).isEmptyDirectory();
        assertThat(first.logFile("agent-1")).hasContent("first pod");
    }
}
