package org.carla.leaderboard.podruntime.logcopy;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;

/**
 * The status files logcopy reacts to, and its wait between periods: the wait ends early when every worker pair has
 * written its done files, a {@code simulation.cancel} appeared or the pair containers' start files reached the restart
 * limit (every 250 ms, 2N + 1 {@code lstat}s and one per start file plus one per container: cheap, and independent of
 * how many names a participant's code put in the folder), or when logcopy is asked to stop.
 */
final class StatusWatch {

    private static final long SLICE_MILLIS = 250;

    private final Path statusDir;
    private final int workerPairs;
    private final int restartLimit;
    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile long stoppedAt;

    StatusWatch(Path statusDir, int workerPairs, int restartLimit) {
        this.statusDir = statusDir;
        this.workerPairs = workerPairs;
        this.restartLimit = restartLimit;
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

    /**
     * The pair containers' start files there: each container's {@code start0}, {@code start1}... up to the first
     * missing, and never more than the restart limit plus one of a container (enough to know the limit is reached).
     */
    List<String> startFiles() {
        var names = new ArrayList<String>();
        for (int pair = 1; pair <= workerPairs; pair++) {
            for (Role role : Role.values()) {
                for (int k = 0; k <= restartLimit && present(StatusFiles.start(role, pair, k)); k++) {
                    names.add(StatusFiles.start(role, pair, k));
                }
            }
        }
        return names;
    }

    /** The pair containers' restarts ({@link StatusFiles#restarts}) have reached the restart limit. */
    boolean restartLimitReached() {
        return StatusFiles.restarts(startFiles(), workerPairs) >= restartLimit;
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
