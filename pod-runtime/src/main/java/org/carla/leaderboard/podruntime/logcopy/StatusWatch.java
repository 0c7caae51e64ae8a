package org.carla.leaderboard.podruntime.logcopy;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;

/**
 * The status files logcopy reacts to, and its wait between periods: the wait ends early when every worker pair has
 * written its done files or a {@code simulation.cancel} appeared (2N + 1 {@code lstat}s every 250 ms: cheap, and
 * independent of how many names a participant's code put in the folder), or when logcopy is asked to stop.
 */
final class StatusWatch {

    private static final long SLICE_MILLIS = 250;

    private final Path statusDir;
    private final int workerPairs;
    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile long stoppedAt;

    StatusWatch(Path statusDir, int workerPairs) {
        this.statusDir = statusDir;
        this.workerPairs = workerPairs;
    }

    /** Every simulator and agent has written its done file (2N files). */
    boolean allWorkersDone() {
        for (int pair = 1; pair <= workerPairs; pair++) {
            if (!present(StatusFiles.done(Role.AGENT, pair)) || !present(StatusFiles.done(Role.SIMULATOR, pair))) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code simulation.cancel} is there, whoever wrote it. */
    boolean cancelPresent() {
        return present(StatusFiles.SIMULATION_CANCEL);
    }

    /** Waits {@code timeout}; earlier when {@code wake} turns true, or when stopped. */
    void await(Duration timeout, BooleanSupplier wake) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || stopRequested() || wake.getAsBoolean()) {
                return;
            }
            stop.await(Math.min(TimeUnit.NANOSECONDS.toMillis(remaining) + 1, SLICE_MILLIS), TimeUnit.MILLISECONDS);
        }
    }

    void requestStop() {
        if (stop.getCount() > 0) {
            stoppedAt = System.nanoTime();
            stop.countDown();
        }
    }

    boolean stopRequested() {
        return stop.getCount() == 0;
    }

    /** {@link System#nanoTime()} of the stop request; meaningful once {@link #stopRequested()}. */
    long stoppedAt() {
        return stoppedAt;
    }

    private boolean present(String name) {
        return Files.exists(statusDir.resolve(name), LinkOption.NOFOLLOW_LINKS);
    }
}
