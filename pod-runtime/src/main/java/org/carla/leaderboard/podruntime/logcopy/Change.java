package org.carla.leaderboard.podruntime.logcopy;

/**
 * What a walk found a file of the logs volume to have become since the walk before, and so what the containers wrote
 * ({@link #written}, what {@link UploadBudget} counts).
 */
sealed interface Change {

    /** Bytes the containers wrote for this change. */
    long written();

    /** Seen for the first time. */
    record New(long size) implements Change {
        @Override
        public long written() {
            return size;
        }
    }

    /** Seen for the first time, and already in S3 under its key as it is: a resumed run's file that init downloaded. */
    record Listed() implements Change {
        @Override
        public long written() {
            return 0;
        }
    }

    /** Appended to: the same file, as long or longer, the bytes before its old end as they were. */
    record Grown(long from, long to) implements Change {
        @Override
        public long written() {
            return to - from;
        }
    }

    /** Written again: shorter than before, another file (identity), or other bytes before the old end. */
    record Rewritten(long size) implements Change {
        @Override
        public long written() {
            return size;
        }
    }

    /**
     * How a file seen as {@code before} became {@code now}, given the CRC of the bytes before {@code before}'s end as
     * the file is now. A rewrite in the middle that keeps the {@link FileDigests#SEAM} bytes before the old end is taken
     * for an append: not detected.
     */
    static Change between(FileState.Seen before, FileState.Seen now, long seamAtOldEnd) {
        boolean appended = java.util.Objects.equals(before.fileKey(), now.fileKey()) && now.size() >= before.size()
                && seamAtOldEnd == before.seam();
        return appended ? new Grown(before.size(), now.size()) : new Rewritten(now.size());
    }
}
