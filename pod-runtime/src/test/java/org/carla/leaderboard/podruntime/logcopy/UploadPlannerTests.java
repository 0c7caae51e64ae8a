package org.carla.leaderboard.podruntime.logcopy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import org.carla.leaderboard.podruntime.logcopy.FileState.Seen;
import org.carla.leaderboard.podruntime.logcopy.FileState.Uploaded;
import org.carla.leaderboard.podruntime.logcopy.UploadPlanner.Append;
import org.carla.leaderboard.podruntime.logcopy.UploadPlanner.WaitForBudget;
import org.carla.leaderboard.podruntime.logcopy.UploadPlanner.Whole;
import org.junit.jupiter.api.Test;

/** What logcopy sends for the volume's changes, decided over file states alone: no file is read, no S3 is called. */
class UploadPlannerTests {

    private static final long MIB = 1024 * 1024;
    private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");
    private static final Duration INTERVAL = Duration.ofSeconds(30);
    private static final String CHECKPOINT = "agent/agent1/agent_results.json";
    private static final String LOG = "agent/agent1/leaderboard.log";

    /** A file of {@code size} bytes, changed at {@code since}; S3 holds {@code inS3} bytes of it (-1: nothing). */
    private static FileState file(long size, long inS3, Instant since, Instant lastUpload) {
        Object key = "inode-1";
        Uploaded uploaded = inS3 < 0 ? null : new Uploaded(inS3, "\"etag\"", 7, null, key);
        return new FileState(new Seen(key, size, FileTime.from(since), 9), uploaded, since, lastUpload);
    }

    private static UploadPlanner planner(long written) {
        var budget = new UploadBudget();
        budget.written(written);
        return new UploadPlanner(INTERVAL, budget, CHECKPOINT::equals);
    }

    @Test
    void aChangedFileGoesOncePerIntervalAndEveryChangeAtAFlush() {
        var files = new LinkedHashMap<String, FileState>();
        files.put("new.log", file(100, -1, T0, null));
        files.put("sent-10-s-ago.log", file(100, 50, T0, T0.minusSeconds(10)));
        files.put("sent-30-s-ago.log", file(100, 50, T0, T0.minusSeconds(30)));
        files.put("in-s3.log", new FileState(file(100, 100, T0, null).seen(), file(100, 100, T0, null).uploaded(), null,
                T0.minusSeconds(60)));

        assertThat(planner(0).due(files, T0, false)).containsExactly("new.log", "sent-30-s-ago.log");
        assertThat(planner(0).due(files, T0, true)).containsExactly("new.log", "sent-10-s-ago.log",
                "sent-30-s-ago.log");
    }

    @Test
    void aFileReachingFiveMebibytesGoesFirstThenTheOldestChangeThenByName() {
        var files = new LinkedHashMap<String, FileState>();
        files.put("b.log", file(100, -1, T0.plusSeconds(1), null));
        files.put("a.log", file(100, -1, T0.plusSeconds(1), null));
        files.put("old.log", file(100, 10, T0, null));
        files.put("graduating.log", file(6 * MIB, 4 * MIB, T0.plusSeconds(5), null));
        files.put("appended.log", file(7 * MIB, 6 * MIB, T0.plusSeconds(5), null));

        assertThat(planner(0).due(files, T0.plusSeconds(10), false))
                .containsExactly("graduating.log", "old.log", "a.log", "b.log", "appended.log");
    }

    @Test
    void aGrownFileWhoseObjectHoldsFiveMebibytesGetsItsTailAndAnythingElseGoesWhole() {
        var pass = planner(100 * MIB).pass(false);

        assertThat(pass.step(LOG, file(7 * MIB, 6 * MIB, T0, null))).isEqualTo(new Append(6 * MIB, 7 * MIB));
        assertThat(pass.step(LOG, file(4 * MIB, 3 * MIB, T0, null)))
                .as("below 5 MiB in S3").isEqualTo(new Whole(4 * MIB));
        assertThat(pass.step(LOG, file(5 * MIB, 6 * MIB, T0, null)))
                .as("shorter: rewritten").isEqualTo(new Whole(5 * MIB));
        FileState otherFile = new FileState(new Seen("inode-2", 7 * MIB, FileTime.from(T0), 9),
                file(7 * MIB, 6 * MIB, T0, null).uploaded(), T0, null);
        assertThat(pass.step(LOG, otherFile)).as("another file at the name").isEqualTo(new Whole(7 * MIB));
        assertThat(pass.step(LOG, file(3, -1, T0, null))).isEqualTo(new Whole(3));
    }

    @Test
    void theBudgetHoldsResendsBehindTheOldestThatDidNotFitButLetsNewBytesGo() {
        // 1 MiB written: the budget allows 1.4 MiB + 8 MiB.
        UploadPlanner planner = planner(MIB);
        var pass = planner.pass(false);

        assertThat(pass.step(LOG, file(4 * MIB, 3 * MIB, T0, null))).isEqualTo(new Whole(4 * MIB));
        pass.sent(4 * MIB);
        assertThat(pass.step(LOG, file(4 * MIB, 3 * MIB, T0, null))).isEqualTo(new Whole(4 * MIB));
        pass.sent(4 * MIB);
        assertThat(pass.step(LOG, file(2 * MIB, MIB, T0, null))).as("no room left").isEqualTo(new WaitForBudget());
        assertThat(pass.step(LOG, file(1000, 10, T0, null))).as("sent again, behind the one that waits")
                .isEqualTo(new WaitForBudget());
        assertThat(pass.step(LOG, file(1000, -1, T0, null)))
                .as("never in S3: its bytes are new").isEqualTo(new Whole(1000));
        assertThat(pass.step(LOG, file(7 * MIB, 6 * MIB, T0, null))).as("a tail is never held")
                .isEqualTo(new Append(6 * MIB, 7 * MIB));

        var flush = planner.pass(true);
        assertThat(flush.step(LOG, file(2 * MIB, MIB, T0, null)))
                .as("a flush sends every change").isEqualTo(new Whole(2 * MIB));
        assertThat(flush.whole(LOG, file(9 * MIB, 6 * MIB, T0, null))).isEqualTo(new Whole(9 * MIB));
    }

    @Test
    void whatTheBudgetAllowsIsBoundedByWhatWasWritten() {
        var planner = planner(0);
        Map<String, FileState> none = Map.of();
        assertThat(planner.due(none, T0, true)).isEmpty();
        var pass = planner.pass(false);
        assertThat(pass.step(LOG, file(UploadBudget.ALLOWANCE, -1, T0, null)))
                .isEqualTo(new Whole(UploadBudget.ALLOWANCE));
        assertThat(pass.step(LOG, file(UploadBudget.ALLOWANCE + 1, -1, T0, null))).isEqualTo(new WaitForBudget());
    }

    /**
     * logcopy's merged results are made of the agents' checkpoints: a checkpoint that changed goes in the pass that
     * sees it, first, though it went a second ago and the budget has no room, so S3 never shows more routes in the
     * merged results than in the checkpoint a replaced pod resumes from.
     */
    @Test
    void anAgentsCheckpointGoesInEveryPassThatSeesItChangedFirstAndNeverWaitsForTheBudget() {
        var files = new LinkedHashMap<String, FileState>();
        files.put("graduating.log", file(6 * MIB, 4 * MIB, T0, null));
        files.put(CHECKPOINT, file(2 * MIB, MIB, T0.plusSeconds(9), T0.plusSeconds(9)));
        files.put(LOG, file(2 * MIB, MIB, T0, T0.plusSeconds(9)));
        UploadPlanner planner = planner(0);
        var pass = planner.pass(false);

        assertThat(planner.due(files, T0.plusSeconds(10), false)).containsExactly(CHECKPOINT, "graduating.log");
        pass.sent(UploadBudget.ALLOWANCE);
        assertThat(pass.step(CHECKPOINT, files.get(CHECKPOINT))).isEqualTo(new Whole(2 * MIB));
        assertThat(pass.step(LOG, files.get(LOG))).as("no room left").isEqualTo(new WaitForBudget());
    }
}
