package org.carla.leaderboard.podruntime.volume;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * {@code cp -r SOURCE/* TARGET/} without a shell: the contents of a folder over another, symbolic links kept as links,
 * everything readable by every container's user (the agent reads the Leaderboard init copied).
 */
public final class FolderCopy {

    private FolderCopy() {
    }

    public static long copyContents(Path source, Path target) throws IOException {
        if (!Files.isDirectory(source)) {
            throw new IOException(source + " is not a folder");
        }
        Files.createDirectories(target);
        long[] files = { 0 };
        try (Stream<Path> paths = Files.walk(source)) {
            paths.filter(path -> !path.equals(source)).forEach(path -> {
                Path destination = target.resolve(source.relativize(path).toString());
                try {
                    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                        Files.createDirectories(destination);
                        SharedFiles.readableByAll(destination);
                    } else {
                        if (Files.isDirectory(destination, LinkOption.NOFOLLOW_LINKS)) {
                            deleteTree(destination);
                        }
                        Files.copy(path, destination, StandardCopyOption.REPLACE_EXISTING,
                                StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                        if (!Files.isSymbolicLink(destination)) {
                            SharedFiles.readableByAll(destination);
                        }
                        files[0]++;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return files[0];
    }

    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
