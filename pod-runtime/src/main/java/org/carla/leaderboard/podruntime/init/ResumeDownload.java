package org.carla.leaderboard.podruntime.init;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import org.carla.leaderboard.podruntime.volume.FolderCopy;

/**
 * A resumed submission's earlier files, brought into the logs volume all or nothing: downloaded into a hidden folder
 * of the volume, then moved into place entry by entry (a rename on the same file system). A failed download leaves the
 * volume as it was, so the retried init container starts clean.
 */
public final class ResumeDownload {

    static final String STAGING_PREFIX = ".resume-download-";

    private ResumeDownload() {
    }

    @FunctionalInterface
    public interface Download {
        long into(Path folder) throws IOException;
    }

    public static long run(Path logs, Download download) throws IOException {
        Files.createDirectories(logs);
        discardStaging(logs);
        Path staging = Files.createTempDirectory(logs, STAGING_PREFIX);
        long count;
        try {
            count = download.into(staging);
        } catch (IOException | RuntimeException e) {
            FolderCopy.deleteTree(staging);
            throw e;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(staging)) {
            for (Path entry : entries) {
                moveInto(entry, logs.resolve(entry.getFileName().toString()));
            }
        }
        FolderCopy.deleteTree(staging);
        return count;
    }

    /** Folders merge (an empty layout folder may already be there); files replace. */
    private static void moveInto(Path source, Path target) throws IOException {
        if (Files.isDirectory(source, LinkOption.NOFOLLOW_LINKS) && Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(source)) {
                for (Path entry : entries) {
                    moveInto(entry, target.resolve(entry.getFileName().toString()));
                }
            }
            return;
        }
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            FolderCopy.deleteTree(target);
        }
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Leftovers of an init container killed in the middle of a download. */
    private static void discardStaging(Path logs) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(logs, STAGING_PREFIX + "*")) {
            for (Path entry : entries) {
                FolderCopy.deleteTree(entry);
            }
        }
    }
}
