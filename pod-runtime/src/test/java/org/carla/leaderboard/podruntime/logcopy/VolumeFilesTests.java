package org.carla.leaderboard.podruntime.logcopy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The logs volume as a participant's code can leave it (issue 15): links to files outside it and to devices, named
 * pipes where logcopy reads and writes, its folders replaced by links. logcopy reads nothing outside the volume,
 * writes nothing outside it, and never waits on a pipe.
 */
class VolumeFilesTests {

    /** Generous: an open that blocks on a pipe never returns at all without the guard. */
    private static final Duration NEVER = Duration.ofSeconds(60);

    @TempDir
    Path temp;

    private final GuardedOpen guard = new GuardedOpen(Duration.ofMillis(500));

    @AfterEach
    void stopGuard() {
        guard.close();
    }

    @Test
    void aLinkIsNeverReadThroughWhateverItPointsTo() throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        Path secret = Files.writeString(temp.resolve("token"), "a service account token");
        write(logs, "agent/agent1/leaderboard.log", "route 1\n");
        Files.createSymbolicLink(logs.resolve("agent/agent1/agent_results.json"), secret);
        Files.createSymbolicLink(logs.resolve("agent/agent2"), temp);
        Files.createSymbolicLink(logs.resolve("zero.log"), Path.of("/dev/zero"));
        var volume = new VolumeFiles(logs, guard);

        VolumeFiles.Listing listing = volume.walk(name -> false);

        assertThat(listing.files()).extracting(VolumeFiles.Found::relative)
                .containsExactly("agent/agent1/leaderboard.log");
        assertThat(listing.skipped()).extracting(VolumeFiles.Skipped::relative, VolumeFiles.Skipped::why)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("agent/agent1/agent_results.json", "a symbolic link"),
                        org.assertj.core.groups.Tuple.tuple("agent/agent2", "a symbolic link"),
                        org.assertj.core.groups.Tuple.tuple("zero.log", "a symbolic link"));
        // Without O_NOFOLLOW the token reached S3, and /dev/zero filled logcopy's memory.
        assertThatThrownBy(() -> volume.read("agent/agent1/agent_results.json", 1 << 20))
                .isInstanceOf(VolumeFiles.NotRegularException.class).hasMessageEndingWith("is a symbolic link");
        assertThatThrownBy(() -> volume.read("zero.log", 1 << 20)).hasMessageEndingWith("is a symbolic link");
        assertThatThrownBy(() -> volume.read("agent/agent2/token", 1 << 20))
                .hasMessage("agent/agent2/token: agent2 is a symbolic link");
        assertThat(volume.read("agent/agent1/leaderboard.log", 1 << 20)).asString(StandardCharsets.UTF_8)
                .isEqualTo("route 1\n");
    }

    @Test
    void aControlFolderInTheVolumeIsNeverTakenForTheRelaysControlObjects() throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        write(logs, "control/cancel", "");
        write(logs, "agent/control/notes.txt", "a participant's own folder of that name, elsewhere");
        var volume = new VolumeFiles(logs, guard);

        VolumeFiles.Listing listing = volume.walk(name -> false);

        // Uploaded, it was <submission id>/control/cancel: the cancel object logcopy itself looks for.
        assertThat(listing.files()).extracting(VolumeFiles.Found::relative).containsExactly("agent/control/notes.txt");
        assertThat(listing.skipped()).extracting(VolumeFiles.Skipped::relative, VolumeFiles.Skipped::why)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("control/",
                        "its S3 keys are the relay's control objects"));
    }

    @Test
    void aNamedPipeIsNeverOpened() throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        mkfifo(Files.createDirectories(logs.resolve("evalai")).resolve("stdout.txt"));
        var volume = new VolumeFiles(logs, guard);

        // Without the check of the name's type, this read blocked logcopy's thread until a writer came (185 s).
        assertTimeoutPreemptively(NEVER, () -> assertThatThrownBy(() -> volume.read("evalai/stdout.txt", 1024))
                .hasMessage("evalai/stdout.txt is a named pipe, socket or device"));
        assertThat(volume.walk(name -> false).skipped()).extracting(VolumeFiles.Skipped::relative)
                .containsExactly("evalai/stdout.txt");
        assertThat(guard.blocked()).isZero();
    }

    @Test
    void aFileLargerThanTheBoundIsNotRead() throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        write(logs, "agent/agent1/agent_results.json", "x".repeat(2048));

        assertThatThrownBy(() -> new VolumeFiles(logs, guard).read("agent/agent1/agent_results.json", 1024))
                .hasMessage("agent/agent1/agent_results.json is larger than 1024 bytes");
    }

    @Test
    void writesReplaceWhatIsThereAndNeverGoThroughALink() throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Path victim = Files.writeString(temp.resolve("victim.txt"), "precious");
        Files.createSymbolicLink(logs.resolve("evalai"), outside);
        Files.createDirectories(logs.resolve("containers-status"));
        Files.createSymbolicLink(logs.resolve("containers-status/logcopy.done"), victim);
        mkfifo(logs.resolve("agent_results.json"));
        var volume = new VolumeFiles(logs, guard);

        assertThat(volume.replace("evalai/results.json", "[]".getBytes(StandardCharsets.UTF_8), false))
                .contains("evalai was a symbolic link: replaced by a real folder");
        assertThat(volume.replace("containers-status/logcopy.done", new byte[0], true)).isEmpty();
        assertTimeoutPreemptively(NEVER, () -> volume.replace("agent_results.json", "{}".getBytes(), false));

        // Without this, the EvalAI files were written outside the volume and the link's target was truncated.
        try (var files = Files.list(outside)) {
            assertThat(files).isEmpty();
        }
        assertThat(Files.readString(victim)).isEqualTo("precious");
        assertThat(Files.isSymbolicLink(logs.resolve("evalai"))).isFalse();
        assertThat(Files.readString(logs.resolve("evalai/results.json"))).isEqualTo("[]");
        assertThat(Files.isRegularFile(logs.resolve("containers-status/logcopy.done"),
                java.nio.file.LinkOption.NOFOLLOW_LINKS)).isTrue();
        assertThat(Files.readString(logs.resolve("agent_results.json"))).isEqualTo("{}");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(logs.resolve("evalai/results.json"))))
                .isEqualTo("rw-r--r--");
    }

    @Test
    void aStatusFolderReplacedByALinkComesBackOpenToEveryContainer() throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.createSymbolicLink(logs.resolve("containers-status"), outside);

        new VolumeFiles(logs, guard).replace("containers-status/simulation.cancel", new byte[0], true);

        assertThat(Files.exists(logs.resolve("containers-status/simulation.cancel"))).isTrue();
        assertThat(outside.resolve("simulation.cancel")).doesNotExist();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(logs.resolve("containers-status"))))
                .isEqualTo("rwxrwxrwx");
    }

    @Test
    void theWalkIsBoundedInDepthAndSkipsLogcopysOwnAndTemporaryFiles() throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        Path deep = logs;
        for (int i = 0; i < VolumeFiles.MAX_DEPTH + 2; i++) {
            deep = deep.resolve("d");
        }
        Files.createDirectories(deep);
        Files.writeString(deep.resolve("bottom.log"), "x");
        write(logs, "evalai/.results.json.1a2b.tmp", "half");
        write(logs, "evalai/results.json", "[]");
        write(logs, "simulator/simulator1.log", "CARLA\n");

        VolumeFiles.Listing listing = new VolumeFiles(logs, guard).walk("evalai/results.json"::equals);

        assertThat(listing.files()).extracting(VolumeFiles.Found::relative).containsExactly("simulator/simulator1.log");
        assertThat(listing.skipped()).singleElement().extracting(VolumeFiles.Skipped::why).asString()
                .startsWith("deeper than 16 folders");
    }

    @Test
    void aMillionNamesCostABoundedWalk() throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        Path many = Files.createDirectories(logs.resolve("agent/agent1/many"));
        for (int i = 0; i < VolumeFiles.MAX_NAMES + 10; i++) {
            Files.createFile(many.resolve("f" + i));
        }

        VolumeFiles.Listing listing = new VolumeFiles(logs, guard).walk(name -> false);

        assertThat(listing.files().size()).isLessThan(VolumeFiles.MAX_NAMES);
        assertThat(listing.skipped()).singleElement().extracting(VolumeFiles.Skipped::why).asString()
                .contains("more than 20000 names");
    }

    static void mkfifo(Path path) throws IOException, InterruptedException {
        assertThat(new ProcessBuilder("mkfifo", path.toString()).inheritIO().start().waitFor()).isZero();
    }

    private static void write(Path logs, String relative, String text) throws IOException {
        Path file = logs.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
