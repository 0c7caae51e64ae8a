package org.carla.leaderboard.podruntime.supervisor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.carla.leaderboard.podruntime.volume.SharedFiles;
import org.jboss.logging.Logger;

/**
 * The {@code containers-status} folder: the waiter and the post writer of every role. File-system events (inotify)
 * ring the wake-up at once; the directory is also re-listed at every {@link #POLL} in case events are not delivered
 * (some volume types, a folder replaced under us), so a status file is seen within that bound either way.
 */
public final class StatusDirectory implements Waiter, PostWriter, AutoCloseable {

    /** The backstop poll period: keeps the reaction under 250 ms even without file-system events. */
    public static final Duration POLL = Duration.ofMillis(100);

    private static final Logger LOG = Logger.getLogger(StatusDirectory.class);

    private final Path directory;
    private final Wakeup wakeup;
    private final long[] cursor;
    private final WatchService watchService;

    public StatusDirectory(Path directory, Wakeup wakeup) {
        this.directory = directory;
        this.wakeup = wakeup;
        this.cursor = wakeup.cursor();
        WatchService service = null;
        try {
            SharedFiles.openFolder(directory);
            service = directory.getFileSystem().newWatchService();
            directory.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warnf("no file-system events for %s (%s): polling every %d ms only", directory, e, POLL.toMillis());
            service = null;
        }
        this.watchService = service;
        if (service != null) {
            Thread thread = new Thread(this::watch, "status-watch");
            thread.setDaemon(true);
            thread.start();
        }
    }

    private void watch() {
        try {
            while (true) {
                WatchKey key = watchService.take();
                key.pollEvents();
                wakeup.ring();
                if (!key.reset()) {
                    return;
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closed: the role is ending
        }
    }

    public Path path() {
        return directory;
    }

    @Override
    public Set<String> present() {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).collect(Collectors.toSet());
        } catch (IOException e) {
            LOG.warnf("cannot list %s: %s", directory, e);
            return Set.of();
        }
    }

    @Override
    public void awaitChange(Duration max) throws InterruptedException {
        wakeup.await(max.compareTo(POLL) < 0 ? max : POLL, cursor);
    }

    /**
     * Writes an empty status file, readable by every container's user (logcopy uploads it); written under a hidden name
     * and renamed, so nobody sees it half made.
     */
    @Override
    public void post(String statusFile) {
        Path target = directory.resolve(statusFile);
        try {
            Path temporary = Files.createTempFile(directory, ".post-", ".tmp");
            try {
                SharedFiles.setMode(temporary, SharedFiles.READABLE); // a temporary file is created 0600
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException e) {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write status file " + target, e);
        }
    }

    @Override
    public void close() {
        if (watchService != null) {
            try {
                watchService.close();
            } catch (IOException e) {
                LOG.debugf("closing the watch service: %s", e);
            }
        }
    }
}
