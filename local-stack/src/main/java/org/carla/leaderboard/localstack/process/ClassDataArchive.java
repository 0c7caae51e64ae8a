package org.carla.leaderboard.localstack.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * A local server's classes as a JVM archive (AppCDS, JDK 13+'s dynamic archive): a server JVM starts with half the CPU
 * when it maps the classes a first run of the same class path loaded. The first start of a class path on this machine
 * runs with {@code -XX:ArchiveClassesAtExit}, and the archive is kept once that server has stopped on SIGTERM; later
 * starts run with {@code -XX:SharedArchiveFile}. The archive is named by what the JVM checks it against (the JDK, and
 * every class path entry's path, size and time), so a rebuilt jar or another JDK gets an archive of its own, and a
 * JVM that cannot use one still starts, without it ({@code -Xshare:auto}, the default).
 *
 * <p>Archives live in {@code ~/.cache/carla-leaderboard/cds} ({@code $XDG_CACHE_HOME} if set). One server at a time
 * makes a class path's archive (a lock file, taken over after {@link #LOCK_STALE}). A class path the JVM would not
 * archive (a folder on it, even one named by a jar's manifest) is marked {@code .jsa.refused} and never tried again.
 * Archives unused for {@link #UNUSED} are deleted as another is made.
 */
public final class ClassDataArchive {

    static final Duration LOCK_STALE = Duration.ofMinutes(10);
    static final Duration UNUSED = Duration.ofDays(7);
    private static final String SUFFIX = ".jsa";

    private final Path archive;
    private final Path making;
    private final Path lock;
    private final List<String> command;
    private final boolean makes;
    private boolean ended;

    private ClassDataArchive(Path archive, Path making, Path lock, List<String> command, boolean makes) {
        this.archive = archive;
        this.making = making;
        this.lock = lock;
        this.command = command;
        this.makes = makes;
    }

    /** The default folder: {@code $XDG_CACHE_HOME/carla-leaderboard/cds}, else {@code ~/.cache/...}. */
    public static Path defaultFolder() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path cache = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return cache.resolve("carla-leaderboard").resolve("cds");
    }

    /**
     * For a command {@code <jdk>/bin/java <options> -cp <class path> <main> ...}: the command with the archive's
     * option; any other command (no class path, or a folder in it, which the JVM does not archive) unchanged.
     */
    public static ClassDataArchive of(List<String> command, Path folder) {
        int cp = command.indexOf("-cp");
        if (command.isEmpty() || !command.get(0).endsWith("java") || cp < 0 || cp + 1 >= command.size()) {
            return none(command);
        }
        Optional<String> key = key(Path.of(command.get(0)), command.get(cp + 1));
        if (key.isEmpty()) {
            return none(command);
        }
        Path archive = folder.resolve(key.get() + SUFFIX);
        Path lock = folder.resolve(key.get() + ".lock");
        Path making = folder.resolve(key.get() + "." + ProcessHandle.current().pid() + "." + System.nanoTime()
                + ".making");
        if (Files.isRegularFile(archive)) {
            touch(archive);
            return new ClassDataArchive(archive, making, lock, with(command, "-XX:SharedArchiveFile=" + archive),
                    false);
        }
        if (Files.exists(refused(archive))) {
            return none(command);
        }
        if (!takeLock(folder, lock)) {
            return none(command);
        }
        deleteUnused(folder);
        return new ClassDataArchive(archive, making, lock, with(command, "-XX:ArchiveClassesAtExit=" + making), true);
    }

    private static ClassDataArchive none(List<String> command) {
        return new ClassDataArchive(null, null, null, List.copyOf(command), false);
    }

    /** The command to run. */
    public List<String> command() {
        return command;
    }

    /** Whether this start makes the class path's archive. */
    public boolean makes() {
        return makes;
    }

    /**
     * Once the server has exited: keeps the archive it made when it stopped on SIGTERM ({@code stopped}), drops it
     * otherwise (killed: the file may be cut short), and frees the lock either way. Only the first call counts.
     */
    public synchronized void exited(boolean stopped) {
        if (!makes || ended) {
            return;
        }
        ended = true;
        try {
            if (stopped && Files.isRegularFile(making) && Files.size(making) > 0) {
                Files.move(making, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } else if (stopped) {
                // The JVM would not archive this class path (DynamoDB Local's jar names a folder in its manifest's
                // Class-Path): later starts do not try again.
                Files.writeString(refused(archive), "", StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            // no archive this time; the next start makes one
        } finally {
            deleteQuietly(making);
            deleteQuietly(lock);
        }
    }

    private static Path refused(Path archive) {
        return archive.resolveSibling(archive.getFileName() + ".refused");
    }

    /**
     * What the JVM checks a dynamic archive against: the JDK ({@code release} file, its build) and each class path
     * entry's path, size and modification time. Empty when an entry is a folder or missing: nothing to archive then.
     */
    static Optional<String> key(Path javaExecutable, String classPath) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            Path home = javaExecutable.toAbsolutePath().getParent().getParent();
            Path release = home.resolve("release");
            digest.update(home.toString().getBytes(StandardCharsets.UTF_8));
            if (Files.isRegularFile(release)) {
                digest.update(Files.readAllBytes(release));
            }
            for (String entry : classPath.split(java.io.File.pathSeparator)) {
                Path path = Path.of(entry);
                if (!Files.isRegularFile(path)) {
                    return Optional.empty();
                }
                digest.update((entry + "\0" + Files.size(path) + "\0" + Files.getLastModifiedTime(path).toMillis()
                        + "\n").getBytes(StandardCharsets.UTF_8));
            }
            return Optional.of(HexFormat.of().formatHex(digest.digest(), 0, 16));
        } catch (IOException e) {
            return Optional.empty();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> with(List<String> command, String option) {
        var withOption = new ArrayList<String>(command.size() + 1);
        withOption.add(command.get(0));
        withOption.add(option);
        withOption.addAll(command.subList(1, command.size()));
        return List.copyOf(withOption);
    }

    private static boolean takeLock(Path folder, Path lock) {
        try {
            Files.createDirectories(folder);
            try {
                Files.writeString(lock, Long.toString(ProcessHandle.current().pid()), StandardCharsets.UTF_8,
                        java.nio.file.StandardOpenOption.CREATE_NEW);
                return true;
            } catch (FileAlreadyExistsException e) {
                Instant taken = Files.getLastModifiedTime(lock).toInstant();
                if (taken.isAfter(Instant.now().minus(LOCK_STALE))) {
                    return false; // another server makes it now
                }
                Files.deleteIfExists(lock); // its maker died; the next start takes it
                return false;
            }
        } catch (IOException e) {
            return false;
        }
    }

    private static void deleteUnused(Path folder) {
        Instant before = Instant.now().minus(UNUSED);
        try (var files = Files.list(folder)) {
            for (Path file : files.filter(f -> f.getFileName().toString().contains(SUFFIX)).toList()) {
                if (Files.getLastModifiedTime(file).toInstant().isBefore(before)) {
                    deleteQuietly(file);
                }
            }
        } catch (IOException e) {
            // a cache: what is not deleted now is deleted later
        }
    }

    private static void touch(Path archive) {
        try {
            Files.setLastModifiedTime(archive, FileTime.from(Instant.now()));
        } catch (IOException e) {
            // its age only decides when it is deleted
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // left behind in a cache folder
        }
    }
}
