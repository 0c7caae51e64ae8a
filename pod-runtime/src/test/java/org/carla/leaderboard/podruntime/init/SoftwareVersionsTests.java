package org.carla.leaderboard.podruntime.init;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.carla.leaderboard.domain.record.RunVersions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What init reads as a run's versions in the Leaderboard image's folders, and what it leaves unknown. */
class SoftwareVersionsTests {

    private static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";

    @TempDir
    Path image;

    @Test
    void theVersionsOfImagesLaidOutAsTheLeaderboardsDockerfileAndCarlasPackageLayThemOut() throws IOException {
        write("leaderboard/.git/HEAD", "ref: refs/heads/leaderboard-2.0\n");
        write("leaderboard/.git/refs/heads/leaderboard-2.0", COMMIT + "\n");
        write("scenario_runner/scenario_runner.py", "#!/usr/bin/env python\n\"\"\"Welcome\"\"\"\nimport carla\n\n"
                + "# Version of scenario_runner\nVERSION = '0.9.13'\n\n# Minimum version of CARLA\n"
                + "MIN_CARLA_VERSION = '0.9.15'\n");
        write("CARLA/PythonAPI/carla/dist/carla-0.9.15-py3.7-linux-x86_64.egg", "");
        write("CARLA/PythonAPI/carla/dist/README", "");
        // The simulator's image (Package.sh: echo "${REPOSITORY_TAG}" > VERSION), as carla-version leaves it to init.
        write("home/carla/VERSION", "0.9.15\n");
        write("versions/carla-server", SoftwareVersions.carlaServer(image.resolve("home/carla")).orElseThrow() + "\n");

        RunVersions versions = SoftwareVersions.read(2, Optional.of(image.resolve("leaderboard")),
                Optional.of(image.resolve("scenario_runner")), Optional.of(image.resolve("CARLA")),
                Optional.of(image.resolve("versions")));

        assertThat(versions).isEqualTo(new RunVersions(2, Optional.of(COMMIT), Optional.of("0.9.13"),
                Optional.of("0.9.15"), Optional.of("0.9.15")));
    }

    @Test
    void aPackedRefADetachedHeadAndAWheelAreReadToo() throws IOException {
        write("packed/.git/HEAD", "ref: refs/heads/main\n");
        write("packed/.git/packed-refs", "# pack-refs with: peeled fully-peeled sorted\n"
                + "fedcba9876543210fedcba9876543210fedcba98 refs/heads/leaderboard-1.0\n"
                + COMMIT + " refs/heads/main\n");
        write("detached/.git/HEAD", COMMIT + "\n");
        write("PythonAPI/carla/dist/carla-0.9.16-cp310-cp310-manylinux_2_31_x86_64.whl", "");

        assertThat(SoftwareVersions.gitCommit(image.resolve("packed"))).contains(COMMIT);
        assertThat(SoftwareVersions.gitCommit(image.resolve("detached"))).contains(COMMIT);
        assertThat(SoftwareVersions.carlaPythonApi(image.resolve("PythonAPI"))).contains("0.9.16");
    }

    @Test
    void whatDoesNotReadAsAVersionIsLeftUnknown() throws IOException {
        write("noGit/README.md", "no checkout kept");
        write("badRef/.git/HEAD", "ref: ../../../etc/passwd\n");
        write("shortCommit/.git/HEAD", "0123abc\n");
        write("hostile/scenario_runner.py", "VERSION = '$(touch /tmp/ran)'\n");
        write("noVersion/scenario_runner.py", "print('no version here')\n");
        write("twoEggs/carla/dist/carla-0.9.14-py3.7-linux-x86_64.egg", "");
        write("twoEggs/carla/dist/carla-0.9.15-py3.7-linux-x86_64.egg", "");
        write("hostileCarla/VERSION", "0.9.15; reboot\n");
        write("emptyCarla/VERSION", "");
        Files.createDirectories(image.resolve("linked/.git"));
        Files.createSymbolicLink(image.resolve("linked/.git/HEAD"), write("elsewhere", COMMIT + "\n"));

        assertThat(SoftwareVersions.gitCommit(image.resolve("noGit"))).isEmpty();
        assertThat(SoftwareVersions.gitCommit(image.resolve("badRef"))).isEmpty();
        assertThat(SoftwareVersions.gitCommit(image.resolve("shortCommit"))).isEmpty();
        assertThat(SoftwareVersions.gitCommit(image.resolve("linked"))).as("a link is not followed").isEmpty();
        assertThat(SoftwareVersions.scenarioRunner(image.resolve("hostile"))).isEmpty();
        assertThat(SoftwareVersions.scenarioRunner(image.resolve("noVersion"))).isEmpty();
        assertThat(SoftwareVersions.carlaPythonApi(image.resolve("twoEggs"))).as("two that disagree").isEmpty();
        assertThat(SoftwareVersions.carlaServer(image.resolve("hostileCarla"))).isEmpty();
        assertThat(SoftwareVersions.carlaServer(image.resolve("emptyCarla"))).isEmpty();
        assertThat(SoftwareVersions.carlaServer(image.resolve("missing"))).isEmpty();
        assertThat(SoftwareVersions.read(1, Optional.of(image.resolve("missing")), Optional.empty(),
                Optional.of(image.resolve("missing")), Optional.of(image.resolve("missing"))).known()).isEmpty();
    }

    private Path write(String relative, String text) throws IOException {
        Path file = image.resolve(relative);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, text);
    }
}
