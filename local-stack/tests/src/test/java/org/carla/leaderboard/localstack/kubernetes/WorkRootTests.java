package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A runner that switches users refuses a work root other users cannot reach, rather than fail every container. */
class WorkRootTests {

    @TempDir
    Path temporary;

    @Test
    void aFolderAboveTheWorkRootThatOtherUsersCannotSearchIsNamedAndRefused() throws IOException {
        Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path checkout = Files.createDirectory(temporary.resolve("checkout"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path workRoot = Files.createDirectories(checkout.resolve("target/run/jobs"));

        assertThatThrownBy(() -> LocalJobRunner.reachableByEveryUser(workRoot))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(checkout + " (mode 700)")
                .hasMessageNotContaining(temporary + " (mode")
                .hasMessageContaining("chmod o+x");
    }

    @Test
    void aWorkRootUnderSearchableFoldersIsMadeSearchableItself() throws IOException {
        Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path workRoot = Files.createDirectory(temporary.resolve("jobs"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));

        LocalJobRunner.reachableByEveryUser(workRoot);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(workRoot))).isEqualTo("rwx--x--x");
    }
}
