package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.carla.leaderboard.domain.status.StatusFiles;

/**
 * The status files logcopy reacts to, and its wait between periods: the wait ends early when every worker pair has
 * written its done files (a directory listing every 250 ms, cheap) or when logcopy is asked to stop.
 */
final class StatusWatch {

    private static final long SLICE_MILLIS = 250;

    private final Path statusDir;
    private final int workerPairs;
    private final CountDownLatch stop = new CountDownLatch(1);

    StatusWatch(Path statusDir, int workerPairs) {
        this.statusDir = statusDir;
        this.workerPairs = workerPairs;
    }

    /** Every simulator and agent has written its done file (2N files). */
    boolean allWorkersDone() {
        return StatusFiles.allWorkersDone(names(), workerPairs);
    }

    List<String> names() {
        try (Stream<Path> files = Files.list(statusDir)) {
            return files.map(file -> file.getFileName().toString()).toList();
        } catch (IOException e) {
            return List.of(); // not there yet: nobody is done
        }
    }

    Path file(String name) {
        return statusDir.resolve(name);
    }

    /** Waits {@code timeout}; earlier when {@code wakeOnDone} and all workers are done, or when stopped. */
    void await(Duration timeout, boolean wakeOnDone) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || stopRequested() || (wakeOnDone && allWorkersDone())) {
                return;
            }
            stop.await(Math.min(TimeUnit.NANOSECONDS.toMillis(remaining) + 1, SLICE_MILLIS), TimeUnit.MILLISECONDS);
        }
    }

    void requestStop() {
        stop.countDown();
    }

    boolean stopRequested() {
        return stop.getCount() == 0;
    }
}
