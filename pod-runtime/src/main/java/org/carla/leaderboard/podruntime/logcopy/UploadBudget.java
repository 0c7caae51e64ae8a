package org.carla.leaderboard.podruntime.logcopy;

/**
 * The bound on what the logs volume costs in S3 over a run: until the last upload, the bytes sent for the containers'
 * files never exceed {@link #RATIO} × the bytes they wrote plus {@link #ALLOWANCE}. New bytes (a new file, a log's new
 * tail appended) always fit; a file sent again whole (one below S3's 5 MiB part minimum, which cannot be appended to)
 * waits until the bytes written since give it room. 1.4 rather than 1.5 leaves room for the last upload, which sends
 * every change once whatever the budget, so that a run of a couple of hours stays under 1.5×. logcopy's own files
 * (results, EvalAI's files, its log) are outside it.
 */
final class UploadBudget {

    static final double RATIO = 1.4;
    /** Lets the first small files go out at once, before much has been written. */
    static final long ALLOWANCE = 8L * 1024 * 1024;

    private long written;
    private long sent;

    /** The containers wrote {@code bytes} more (a file's growth, or a whole file rewritten). */
    void written(long bytes) {
        written += bytes;
    }

    /** Whether sending {@code bytes} now keeps the bound. */
    boolean allows(long bytes) {
        return sent + bytes <= RATIO * written + ALLOWANCE;
    }

    void sent(long bytes) {
        sent += bytes;
    }

    long written() {
        return written;
    }

    long sent() {
        return sent;
    }
}
