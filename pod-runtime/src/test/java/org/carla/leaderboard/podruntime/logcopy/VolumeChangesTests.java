package org.carla.leaderboard.podruntime.logcopy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.carla.leaderboard.podruntime.logcopy.FileState.Uploaded;
import org.carla.leaderboard.podruntime.logcopy.SubmissionObjects.Remote;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What changed in a real logs volume between two walks: new, grown, rewritten, touched, gone; no S3. */
class VolumeChangesTests {

    private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");

    @TempDir
    Path logs;

    private final GuardedOpen guard = new GuardedOpen(Duration.ofSeconds(2));
    private VolumeChanges changes;

    @BeforeEach
    void volume() {
        changes = new VolumeChanges(new VolumeFiles(logs, guard), name -> name.startsWith("logcopy/"),
                new Refusals("42/"), new FileDigests());
    }

    @AfterEach
    void stopGuard() {
        guard.close();
    }

    @Test
    void aNewFileThenItsAppendThenItsRewritesAreEachTheirChange() throws Exception {
        Path log = Files.createDirectories(logs.resolve("agent/agent1")).resolve("leaderboard.log");
        Files.writeString(log, "route 1 started\n");
        Files.writeString(Files.createDirectories(logs.resolve("logcopy")).resolve("logcopy.log"), "own\n");

        assertThat(changes.observe(T0)).isEqualTo(Map.of("agent/agent1/leaderboard.log", new Change.New(16)));
        assertThat(changes.state("agent/agent1/leaderboard.log").changedSince()).isEqualTo(T0);
        assertThat(changes.observe(T0.plusSeconds(1))).as("unchanged: not read again").isEmpty();

        Files.writeString(log, "route 1 done\n", StandardOpenOption.APPEND);
        assertThat(changes.observe(T0.plusSeconds(2))).containsEntry("agent/agent1/leaderboard.log",
                new Change.Grown(16, 29));
        assertThat(changes.state("agent/agent1/leaderboard.log").changedSince()).as("the oldest change counts")
                .isEqualTo(T0);

        Files.writeString(log, "other\n");
        assertThat(changes.observe(T0.plusSeconds(3))).containsEntry("agent/agent1/leaderboard.log",
                new Change.Rewritten(6));
        Files.writeString(log, "OTHER\n");
        Files.setLastModifiedTime(log, FileTime.from(T0));
        assertThat(changes.observe(T0.plusSeconds(4))).as("same size, other bytes before the end")
                .containsEntry("agent/agent1/leaderboard.log", new Change.Rewritten(6));
        // Written beside it, then renamed over it (as an atomic writer does): another inode, the same first bytes.
        Files.move(Files.writeString(log.resolveSibling("leaderboard.log.new"), "OTHER\nmore\n"), log,
                StandardCopyOption.REPLACE_EXISTING);
        assertThat(changes.observe(T0.plusSeconds(5))).as("another file at the name")
                .containsEntry("agent/agent1/leaderboard.log", new Change.Rewritten(11));
    }

    @Test
    void aFileAsS3HoldsItIsNotPendingAndAGoneOneIsForgotten() throws Exception {
        Path status = Files.writeString(Files.createDirectories(logs.resolve("containers-status")).resolve("agent-1.done"),
                "");
        Files.writeString(logs.resolve("resumed.log"), "downloaded by init\n");
        changes.listed(Map.of("resumed.log", new Remote(19, "\"" + FileDigests.md5(
                "downloaded by init\n".getBytes()) + "\"")));

        assertThat(changes.observe(T0)).containsEntry("resumed.log", new Change.Listed())
                .containsEntry("containers-status/agent-1.done", new Change.New(0));
        assertThat(changes.state("resumed.log").pending()).isFalse();
        assertThat(changes.pending()).isTrue();

        var seen = changes.state("containers-status/agent-1.done").seen();
        changes.sent("containers-status/agent-1.done", new Uploaded(0, "\"e\"", seen.seam(), null, seen.fileKey()),
                T0.plusSeconds(1));
        assertThat(changes.pending()).isFalse();
        assertThat(changes.state("containers-status/agent-1.done").lastUpload()).isEqualTo(T0.plusSeconds(1));

        Files.setLastModifiedTime(logs.resolve("resumed.log"), FileTime.from(T0.minusSeconds(60)));
        assertThat(changes.observe(T0.plusSeconds(2))).as("touched, same bytes: S3 holds it")
                .containsEntry("resumed.log", new Change.Grown(19, 19));
        assertThat(changes.state("resumed.log").pending()).isFalse();

        Files.delete(status);
        changes.observe(T0.plusSeconds(3));
        assertThat(changes.files()).containsOnlyKeys("resumed.log");
    }

    @Test
    void aNameS3WouldRefuseIsRefusedOnceAndNeverLookedAtAgain() throws Exception {
        Files.writeString(logs.resolve("bell\u0007.log"), "x");

        assertThat(changes.observe(T0)).isEmpty();
        assertThat(changes.files()).isEmpty();
        assertThat(changes.observe(T0.plusSeconds(1))).isEmpty();
    }
}
