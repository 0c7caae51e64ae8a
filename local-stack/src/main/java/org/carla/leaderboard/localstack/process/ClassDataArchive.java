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
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * A local server's classes as a JVM archive (AppCDS, JDK 13+'s dynamic archive): a server JVM starts with half the CPU
 * when it maps the classes a first run of the same class path loaded. The first start of a class path on this machine
 * runs with {@code -XX:+RecordDynamicDumpInfo}, and as soon as it is ready the archive is dumped from it
 * ({@code jcmd <pid> VM.cds dynamic_dump}, JDK 17+), so every later start maps it, whatever becomes of the first
 * server; the dump pauses that server for a few seconds, once. The archive is named by what the JVM checks it against
 * (the JDK, and every class path entry's path, size and time), so a rebuilt jar or another JDK gets an archive of its
 * own, and a JVM that cannot use one still starts, without it ({@code -Xshare:auto}, the default).
 *
 * <p>Archives live in {@code ~/.cache/carla-leaderboard/cds} ({@code $XDG_CACHE_HOME} if set). One server at a time
 * makes a class path's archive (a lock file, taken over after {@link #LOCK_STALE}). A class path the JVM would not
 * archive gets none: a folder on it, or one a jar's manifest names (DynamoDB Local's names its own), for the JVM ends
 * a process whose dump it refuses. A dump that fails anyway marks the class path {@code .jsa.refused}, never tried
 * again. Archives unused for {@link #UNUSED} are deleted as another is made.
 */
public final class ClassDataArchive {

    static final Duration LOCK_STALE = Duration.ofMinutes(10);
    static final Duration DUMP_TIMEOUT = Duration.ofMinutes(2);
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
        return new ClassDataArchive(archive, making, lock, with(command, "-XX:+RecordDynamicDumpInfo"), true);
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
     * Once the server is ready: when this start makes the archive, dumps it from {@code server}, keeps it if the dump
     * wrote one, and frees the lock. False when the server did not survive the dump (its class path is then marked
     * refused, so the next start runs without); true otherwise, with or without an archive.
     */
    public synchronized boolean ready(ProcessHandle server) {
        if (!makes || ended) {
            return true;
        }
        ended = true;
        try {
            Path jcmd = Path.of(command.get(0)).resolveSibling("jcmd");
            if (!Files.isExecutable(jcmd)) {
                markRefused(); // a JDK without jcmd (a JRE) cannot dump one
                return true;
            }
            Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(server.pid()), "VM.cds", "dynamic_dump",
                    making.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!dump.waitFor(DUMP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                dump.destroyForcibly();
                return server.isAlive(); // a machine too busy this time; the next start tries again
            }
            if (dump.exitValue() == 0 && Files.isRegularFile(making) && Files.size(making) > 0) {
                Files.move(making, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                return true;
            }
            markRefused();
            return server.isAlive();
        } catch (IOException e) {
            return server.isAlive(); // no archive this time; the next start makes one
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return server.isAlive();
        } finally {
            deleteQuietly(making);
            deleteQuietly(lock);
        }
    }

    /** Once the server has exited: a maker that never got ready frees the lock. Only the first call counts. */
    public synchronized void exited() {
        if (!makes || ended) {
            return;
        }
        ended = true;
        deleteQuietly(making);
        deleteQuietly(lock);
    }

    private void markRefused() {
        try {
            Files.writeString(refused(archive), "", StandardCharsets.UTF_8);
        } catch (IOException e) {
            // tried again at the next start
        }
    }

    private static Path refused(Path archive) {
        return archive.resolveSibling(archive.getFileName() + ".refused");
    }

    /**
     * What the JVM checks a dynamic archive against: the JDK ({@code release} file, its build) and each class path
     * entry's path, size and modification time. Empty when the JVM would not archive the class path: an entry that is
     * a folder or missing, or a non-empty folder named by a jar's manifest {@code Class-Path}.
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
                if (!Files.isRegularFile(path) || namesAFolder(path, new HashSet<>())) {
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

    /** Whether the jar's manifest Class-Path, or that of a jar it names, names a non-empty folder (as the JVM reads it). */
    private static boolean namesAFolder(Path jar, Set<Path> seen) throws IOException {
        if (!seen.add(jar.toAbsolutePath().normalize())) {
            return false;
        }
        Manifest manifest;
        try (var file = new JarFile(jar.toFile())) {
            manifest = file.getManifest();
        } catch (IOException e) {
            return false; // not a jar the JVM reads a manifest from
        }
        String classPath = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
        if (classPath == null) {
            return false;
        }
        for (String named : classPath.trim().split("\\s+")) {
            Path path;
            try {
                path = jar.toAbsolutePath().getParent().resolve(named).normalize();
            } catch (java.nio.file.InvalidPathException e) {
                continue;
            }
            if (Files.isDirectory(path)) {
                try (var files = Files.list(path)) {
                    if (files.findAny().isPresent()) {
                        return true;
                    }
                }
            } else if (Files.isRegularFile(path) && namesAFolder(path, seen)) {
                return true;
            }
        }
        return false;
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
