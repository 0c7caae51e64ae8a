package org.carla.leaderboard.podruntime.init;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.carla.leaderboard.domain.status.StatusFiles;

/**
 * The shared logs volume's layout: {@code agent/agent1..N}, {@code simulator}, {@code logcopy},
 * {@code containers-status}, {@code evalai}, all world-writable, because every image runs as a user of its own.
 */
public final class LogsVolume {

    static final Set<PosixFilePermission> OPEN_FOLDER = PosixFilePermissions.fromString("rwxrwxrwx");
    static final Set<PosixFilePermission> OPEN_FILE = PosixFilePermissions.fromString("rw-rw-rw-");

    private LogsVolume() {
    }

    public static List<Path> folders(Path logs, int workerPairs) {
        List<Path> folders = new ArrayList<>();
        folders.add(logs.resolve("agent"));
        for (int pair = 1; pair <= workerPairs; pair++) {
            folders.add(logs.resolve("agent").resolve("agent" + pair));
        }
        folders.add(logs.resolve("simulator"));
        folders.add(logs.resolve("logcopy"));
        folders.add(logs.resolve(StatusFiles.DIRECTORY));
        folders.add(logs.resolve("evalai"));
        return folders;
    }

    /** Creates the layout (keeping what is there) and opens every folder and file under {@code logs} to everyone. */
    public static void prepare(Path logs, int workerPairs) throws IOException {
        for (Path folder : folders(logs, workerPairs)) {
            Files.createDirectories(folder);
        }
        try (Stream<Path> paths = Files.walk(logs)) {
            paths.filter(path -> !Files.isSymbolicLink(path)).forEach(path -> {
                try {
                    Files.setPosixFilePermissions(path,
                            Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS) ? OPEN_FOLDER : OPEN_FILE);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
