package org.carla.leaderboard.podruntime.logcopy;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * What to send for the volume's changed files, and when: a policy over their {@link FileState}s, with no file and no
 * S3 in it.
 * <ul>
 * <li><b>Checkpoints.</b> An agent's checkpoint goes in the pass that sees it changed, first, whatever the interval and
 * the budget: logcopy's merged results are made of the checkpoints, and S3 must never show more routes in the merged
 * results than in the checkpoints a resumed or replaced pod downloads.</li>
 * <li><b>Interval.</b> Any other changed file goes at most once per {@code interval}; a flush (the end, a cancel, a
 * stop) sends every change at once.</li>
 * <li><b>Order.</b> The checkpoints, then a file that reached 5 MiB while S3 holds less of it (its whole upload is its
 * last: it is appended to from then on), then the oldest change, then by name.</li>
 * <li><b>What.</b> A file whose object in S3 holds 5 MiB or more and that grew is appended to: only its new tail is
 * sent ({@link Append}); anything else is sent whole ({@link Whole}).</li>
 * <li><b>Budget.</b> Until a flush, a whole upload other than a checkpoint's goes only as far as {@link UploadBudget}
 * allows (a checkpoint's bytes count in it all the same); once a file waited for room in a pass, the files sent again
 * after it wait too (the oldest change goes first when there is room), while new files (never in S3) still go if they
 * fit.</li>
 * </ul>
 */
final class UploadPlanner {

    /** What to send for one file. */
    sealed interface Step permits Append, Whole, WaitForBudget {
    }

    /** Copy the object's {@code from} bytes inside S3 and send bytes {@code from} to {@code to} of the file. */
    record Append(long from, long to) implements Step {
    }

    /** Send the file's {@code size} bytes. */
    record Whole(long size) implements Step {
    }

    /** Not now: the budget has no room for it. */
    record WaitForBudget() implements Step {
    }

    private final Duration interval;
    private final UploadBudget budget;
    private final Predicate<String> checkpoint;

    /** {@code checkpoint}: whether a relative path is an agent's checkpoint. */
    UploadPlanner(Duration interval, UploadBudget budget, Predicate<String> checkpoint) {
        this.interval = interval;
        this.budget = budget;
        this.checkpoint = checkpoint;
    }

    /** The pending files due now, in the order they go. */
    List<String> due(Map<String, FileState> files, Instant now, boolean flush) {
        return files.entrySet().stream()
                .filter(file -> file.getValue().pending()
                        && (flush || checkpoint.test(file.getKey()) || due(file.getValue(), now)))
                .sorted(Comparator.comparing((Map.Entry<String, FileState> file) -> !checkpoint.test(file.getKey()))
                        .thenComparing(file -> !file.getValue().graduates())
                        .thenComparing(file -> file.getValue().changedSince()).thenComparing(Map.Entry::getKey))
                .map(Map.Entry::getKey).toList();
    }

    private boolean due(FileState file, Instant now) {
        return file.lastUpload() == null || Duration.between(file.lastUpload(), now).compareTo(interval) >= 0;
    }

    /** One pass over the due files: its decisions, one file at a time, in {@link #due} order. */
    Pass pass(boolean flush) {
        return new Pass(flush);
    }

    final class Pass {

        private final boolean flush;
        private boolean waited;

        private Pass(boolean flush) {
            this.flush = flush;
        }

        /** The tail when S3 holds 5 MiB or more of the same file, shorter; else {@link #whole}. */
        Step step(String relative, FileState file) {
            FileState.Uploaded in = file.uploaded();
            long size = file.seen().size();
            if (in != null && in.size() >= SubmissionObjects.MIN_PART && size > in.size() && in.etag() != null
                    && Objects.equals(in.fileKey(), file.seen().fileKey())) {
                return new Append(in.size(), size);
            }
            return whole(relative, file);
        }

        /**
         * The whole file, if the budget has room for it (new bytes always fit; a file sent again waits behind one
         * that did not fit); always at a flush, and always for a checkpoint. An append that cannot go (the file no
         * longer begins with what S3 holds, or the object changed) asks this.
         */
        Step whole(String relative, FileState file) {
            if (!flush && !checkpoint.test(relative)
                    && (!budget.allows(file.seen().size()) || (waited && file.uploaded() != null))) {
                waited = true;
                return new WaitForBudget();
            }
            return new Whole(file.seen().size());
        }

        /** {@code bytes} of the volume's files went out. */
        void sent(long bytes) {
            budget.sent(bytes);
        }
    }
}
