package org.carla.leaderboard.podruntime.init;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogsVolumeTests {

    @TempDir
    Path logs;

    @Test
    void theLayoutHasAFolderPerAgentAndEveryoneMayWrite() throws IOException {
        Files.createDirectories(logs.resolve("agent/agent1"));
        Files.writeString(logs.resolve("agent/agent1/agent_results.json"), "{}");

        LogsVolume.prepare(logs, 4);

        assertThat(LogsVolume.folders(logs, 4)).allSatisfy(folder -> {
            assertThat(folder).isDirectory();
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder))).isEqualTo("rwxrwxrwx");
        }).extracting(p -> logs.relativize(p).toString()).contains("agent/agent4", "containers-status", "evalai",
                "logcopy", "simulator");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(logs.resolve("agent/agent1/agent_results.json"))))
                .isEqualTo("rw-rw-rw-");
    }
}
