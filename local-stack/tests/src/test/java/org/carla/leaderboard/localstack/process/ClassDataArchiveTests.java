package org.carla.leaderboard.localstack.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassDataArchiveTests {

    @TempDir
    Path work;

    /** A server that says it is up and runs until SIGTERM. */
    public static final class Sleeper {
        public static void main(String[] args) throws InterruptedException {
            System.out.println("up");
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    @Test
    void theFirstStartDumpsTheArchiveOnceReadyAndKeepsRunningWhileTheNextStartMapsIt() throws Exception {
        Path jar = jar(work.resolve("server.jar"));
        Path cache = work.resolve("cds");

        ClassDataArchive making = ClassDataArchive.of(command(jar), cache);
        assertThat(making.makes()).isTrue();
        ServerProcess first = ServerProcess.start("sleeper", making, work, work.resolve("first.log"));
        assertThat(ClassDataArchive.of(command(jar), cache).command()).as("while the first makes it")
                .isEqualTo(command(jar));
        awaitUp(first);
        try (var files = Files.list(cache)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("the archive, and no lock")
                    .singleElement().asString().endsWith(".jsa");
        }
        assertThat(first.isAlive()).as("the server dumped from").isTrue();

        // -Xshare:on: the JVM refuses to start unless it maps the archive.
        var withSharingOn = new ArrayList<>(command(jar));
        withSharingOn.add(1, "-Xshare:on");
        ClassDataArchive archive = ClassDataArchive.of(withSharingOn, cache);
        assertThat(archive.command()).anyMatch(option -> option.startsWith("-XX:SharedArchiveFile="));
        ServerProcess second = started(archive, "second.log");
        second.close();
        first.close();
        assertThat(work.resolve("second.log")).content().doesNotContain("shared archive");
    }

    @Test
    void aMakerKilledBeforeItIsReadyLeavesNoArchiveAndTheNextStartMakesOne() throws Exception {
        Path jar = jar(work.resolve("server.jar"));
        Path cache = work.resolve("cds");

        ServerProcess killed = ServerProcess.start("sleeper", ClassDataArchive.of(command(jar), cache), work,
                work.resolve("killed.log"));
        killed.kill();
        try (var files = Files.list(cache)) {
            assertThat(files).as("no archive, no lock").isEmpty();
        }
        assertThat(ClassDataArchive.of(command(jar), cache).makes()).isTrue();
    }

    @Test
    void aClassPathTheJvmWillNotArchiveGetsNoArchiveAndItsServerRuns() throws Exception {
        // As DynamoDB Local's jar: its manifest's Class-Path names its own folder before the jars its classes come
        // from. The JVM does not archive a class path with a non-empty folder, and ends the process it is asked to
        // dump such an archive from.
        jar(work.resolve("classes.jar"));
        Path jar = work.resolve("server.jar");
        try (var out = new JarOutputStream(Files.newOutputStream(jar), new java.util.jar.Manifest(
                new java.io.ByteArrayInputStream("Manifest-Version: 1.0\nClass-Path: . classes.jar\n"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8))))) {
            out.putNextEntry(new JarEntry("README.txt"));
            out.closeEntry();
        }
        Path cache = work.resolve("cds");

        ClassDataArchive none = ClassDataArchive.of(command(jar), cache);
        assertThat(none.makes()).isFalse();
        assertThat(none.command()).isEqualTo(command(jar));
        ServerProcess server = started(none, "server.log");
        assertThat(server.isAlive()).isTrue();
        server.close();
        assertThat(cache).doesNotExist();
    }

    @Test
    void aServerTheDumpStopsIsReportedAndItsClassPathIsNotTriedAgain() throws Exception {
        // The manifest is read as the JVM reads it, so the one way left to make a dump fail is a folder the JVM meets
        // after the key was taken: the named folder gets its first file once the start was decided.
        Path folder = Files.createDirectories(work.resolve("lib"));
        jar(work.resolve("classes.jar"));
        Path jar = work.resolve("server.jar");
        try (var out = new JarOutputStream(Files.newOutputStream(jar), new java.util.jar.Manifest(
                new java.io.ByteArrayInputStream("Manifest-Version: 1.0\nClass-Path: lib/ classes.jar\n"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8))))) {
            out.putNextEntry(new JarEntry("README.txt"));
            out.closeEntry();
        }
        Path cache = work.resolve("cds");
        ClassDataArchive making = ClassDataArchive.of(command(jar), cache);
        assertThat(making.makes()).as("an empty folder is no reason to refuse").isTrue();
        Files.writeString(folder.resolve("notes.txt"), "");

        ServerProcess server = ServerProcess.start("sleeper", making, work, work.resolve("server.log"));
        assertThatThrownBy(() -> awaitUp(server)).isInstanceOf(ServerStartException.class)
                .hasMessageContaining("class-data archive").matches(e -> ((ServerStartException) e).retryable());
        server.close();
        assertThat(ClassDataArchive.of(command(jar), cache).makes()).as("refused from now on").isFalse();
    }

    @Test
    void aRebuiltJarGetsAnArchiveOfItsOwnAndAFolderNone() throws Exception {
        Path jar = jar(work.resolve("server.jar"));
        String before = ClassDataArchive.key(java(), jar.toString()).orElseThrow();
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().plusSeconds(60)));

        assertThat(ClassDataArchive.key(java(), jar.toString())).get().isNotEqualTo(before);
        assertThat(ClassDataArchive.key(java(), jar + java.io.File.pathSeparator + work)).isEmpty();
        var withFolder = List.of(java().toString(), "-cp", work.toString(), Sleeper.class.getName());
        assertThat(ClassDataArchive.of(withFolder, work.resolve("cds")).command()).isEqualTo(withFolder);
    }

    @Test
    void aLockLeftByADeadMakerIsTakenOverOnceStale() throws Exception {
        Path jar = jar(work.resolve("server.jar"));
        Path cache = work.resolve("cds");
        ClassDataArchive maker = ClassDataArchive.of(command(jar), cache);
        assertThat(maker.makes()).isTrue();
        Path lock;
        try (var files = Files.list(cache)) {
            lock = files.filter(f -> f.toString().endsWith(".lock")).findFirst().orElseThrow();
        }
        Files.setLastModifiedTime(lock, FileTime.from(Instant.now().minus(ClassDataArchive.LOCK_STALE)
                .minusSeconds(1)));

        assertThat(ClassDataArchive.of(command(jar), cache).makes()).as("the stale lock is removed").isFalse();
        assertThat(ClassDataArchive.of(command(jar), cache).makes()).as("and taken by the next start").isTrue();
    }

    private static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    private static List<String> command(Path jar) {
        return List.of(java().toString(), "-XX:TieredStopAtLevel=1", "-cp", jar.toString(), Sleeper.class.getName());
    }

    private static Path jar(Path jar) throws IOException {
        String entry = Sleeper.class.getName().replace('.', '/') + ".class";
        try (var out = new JarOutputStream(Files.newOutputStream(jar));
                InputStream in = Sleeper.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }

    /** The sleeper started with {@code archive}'s command, once it says it is up. */
    private ServerProcess started(ClassDataArchive archive, String log) {
        ServerProcess process = ServerProcess.start("sleeper", archive, work, work.resolve(log));
        awaitUp(process);
        return process;
    }

    private static void awaitUp(ServerProcess process) {
        process.awaitReady(Duration.ofMinutes(1), () -> {
            if (!Files.readString(process.log()).contains("up")) {
                throw new IllegalStateException("not up yet");
            }
        });
    }
}
