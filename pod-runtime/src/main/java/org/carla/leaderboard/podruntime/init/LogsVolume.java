package org.carla.leaderboard.podruntime.init;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.podruntime.volume.SharedFiles;

/**
 * The shared logs volume's layout: {@code agent/agent1..N}, {@code simulator}, {@code logcopy},
 * {@code containers-status}, {@code evalai}, all world-writable, because every image runs as a user of its own.
 */
public final class LogsVolume {

    private LogsVolume() {
    }

    public static List<Path> folders(Path logs, int workerPairs) {
        List<Path> folders = new ArrayList<>();
        folders.add(logs.resolve(LogsLayout.AGENT_DIR));
        for (int pair = 1; pair <= workerPairs; pair++) {
            folders.add(logs.resolve(LogsLayout.agentDir(pair)));
        }
        folders.add(logs.resolve(LogsLayout.SIMULATOR_DIR));
        folders.add(logs.resolve(LogsLayout.LOGCOPY_DIR));
        folders.add(logs.resolve(LogsLayout.STATUS_DIR));
        folders.add(logs.resolve(LogsLayout.EVALAI_DIR));
        return folders;
    }

    /**
     * Creates the layout (keeping what is there) and opens every folder ({@link SharedFiles#OPEN_FOLDER}) and file
     * ({@link SharedFiles#OPEN_FILE}: a resumed run's logs, appended to by the containers' users) under {@code logs}.
     * The volume's root belongs to the kubelet: it is left as it is when it is open already (an emptyDir is 0777).
     */
    public static void prepare(Path logs, int workerPairs) throws IOException {
        prepare(logs, workerPairs, false);
    }

    /**
     * The same; with {@code claims} (a run with a route ledger) also {@code claims/}, emptied (a resume brings the
     * claims of the pod this one replaces, which are not its own) and 0755: only init's and logcopy's user writes it.
     */
    public static void prepare(Path logs, int workerPairs, boolean claims) throws IOException {
        Path claimsDir = logs.resolve(LogsLayout.CLAIMS_DIR);
        if (claims && Files.exists(claimsDir, LinkOption.NOFOLLOW_LINKS)) {
            removeTree(claimsDir);
        }
        for (Path folder : folders(logs, workerPairs)) {
            Files.createDirectories(folder);
        }
        try (Stream<Path> paths = Files.walk(logs)) {
            paths.filter(path -> !Files.isSymbolicLink(path)).forEach(path -> {
                try {
                    SharedFiles.setMode(path, Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)
                            ? SharedFiles.OPEN_FOLDER : SharedFiles.OPEN_FILE);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        if (claims) {
            Files.createDirectory(claimsDir);
            SharedFiles.setMode(claimsDir, SharedFiles.EXECUTABLE);
        }
    }

    private static void removeTree(Path path) throws IOException {
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> children = Files.list(path)) {
                for (Path child : children.toList()) {
                    removeTree(child);
                }
            }
        }
        Files.delete(path);
    }
}
