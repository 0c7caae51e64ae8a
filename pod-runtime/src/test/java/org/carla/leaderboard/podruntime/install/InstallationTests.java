package org.carla.leaderboard.podruntime.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InstallationTests {

    @TempDir
    Path temp;

    @Test
    void aNativeExecutableIsCopiedExecutableUnderItsName() throws IOException {
        Path self = Files.writeString(temp.resolve("built-runner"), "ELF...");

        Path installed = Installation.installNative(self, temp.resolve("volume"));

        assertThat(installed).isEqualTo(temp.resolve("volume/pod-runtime")).hasContent("ELF...");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(installed))).isEqualTo("rwxr-xr-x");
    }

    @Test
    void jvmModeCopiesTheApplicationNextToAFixedLauncher() throws IOException {
        Path application = Files.createDirectories(temp.resolve("target/quarkus-app/lib/main"));
        Files.writeString(temp.resolve("target/quarkus-app/quarkus-run.jar"), "jar");
        Files.writeString(application.resolve("dep.jar"), "dep");

        Path launcher = Installation.installJvm(temp.resolve("target/quarkus-app"), temp.resolve("volume"));

        assertThat(temp.resolve("volume/quarkus-app/lib/main/dep.jar")).hasContent("dep");
        assertThat(Files.readString(launcher)).startsWith("#!/bin/sh\n").doesNotContain(temp.toString())
                .contains("exec \"$java\"").contains("\"$here/quarkus-app/quarkus-run.jar\" \"$@\"");
        assertThat(Files.isExecutable(launcher)).isTrue();
        try (var left = Files.list(temp.resolve("volume"))) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("pod-runtime", "quarkus-app");
        }
    }

    @Test
    void jvmModeRefusesAFolderThatIsNoQuarkusApplication() {
        assertThatThrownBy(() -> Installation.installJvm(temp, temp.resolve("volume")))
                .hasMessageContaining("not a Quarkus application folder");
    }
}
