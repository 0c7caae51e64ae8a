package org.carla.leaderboard.podruntime.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import org.carla.leaderboard.podruntime.volume.FolderCopy;
import org.carla.leaderboard.podruntime.volume.SharedFiles;

/**
 * Puts the executable into the shared {@code pod-runtime} volume, ready to run from any image (Tekton's
 * {@code entrypoint cp}). A native executable copies itself; in JVM mode the Quarkus application folder is copied next
 * to a fixed launcher script that runs it. Either way the result appears under its final name only when complete.
 */
public final class Installation {

    public static final String EXECUTABLE = "pod-runtime";
    static final String APPLICATION = "quarkus-app";

    /** The launcher of JVM mode. Fixed text: nothing from the environment or the user is written into it. */
    static final String LAUNCHER = """
            #!/bin/sh
            # pod-runtime JVM launcher, written by `pod-runtime install`: runs the application copied next to it.
            here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
            if [ -n "$JAVA_HOME" ]; then java="$JAVA_HOME/bin/java"; else java=java; fi
            exec "$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto -jar "$here/quarkus-app/quarkus-run.jar" "$@"
            """;

    private Installation() {
    }

    public static boolean nativeImage() {
        return "runtime".equals(System.getProperty("org.graalvm.nativeimage.imagecode"));
    }

    /** Copies the native executable at {@code self} to {@code target/pod-runtime}. */
    public static Path installNative(Path self, Path target) throws IOException {
        Files.createDirectories(target);
        Path temporary = Files.createTempFile(target, ".pod-runtime-", ".tmp");
        Files.copy(self, temporary, StandardCopyOption.REPLACE_EXISTING);
        SharedFiles.setMode(temporary, SharedFiles.EXECUTABLE);
        return Files.move(temporary, target.resolve(EXECUTABLE), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /** Copies the Quarkus application folder {@code application} and writes the launcher into {@code target}. */
    public static Path installJvm(Path application, Path target) throws IOException {
        if (!Files.isRegularFile(application.resolve("quarkus-run.jar"))) {
            throw new IOException(application + " is not a Quarkus application folder (no quarkus-run.jar)");
        }
        Files.createDirectories(target);
        Path staging = Files.createTempDirectory(target, ".quarkus-app-");
        FolderCopy.copyContents(application, staging);
        // every image's user runs it: the temporary folder was private
        SharedFiles.setMode(staging, SharedFiles.EXECUTABLE);
        Path installed = target.resolve(APPLICATION);
        FolderCopy.deleteTree(installed);
        Files.move(staging, installed, StandardCopyOption.ATOMIC_MOVE);
        Path launcher = Files.createTempFile(target, ".pod-runtime-", ".tmp");
        Files.writeString(launcher, LAUNCHER, StandardCharsets.UTF_8);
        SharedFiles.setMode(launcher, SharedFiles.EXECUTABLE);
        return Files.move(launcher, target.resolve(EXECUTABLE), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /** The Quarkus application folder of this JVM: the parent of {@code quarkus-run.jar} on the class path. */
    public static Path runningApplication() throws IOException {
        for (String entry : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry).toAbsolutePath();
            if (path.getFileName() != null && path.getFileName().toString().equals("quarkus-run.jar")) {
                return path.getParent();
            }
        }
        throw new IOException("not started with `java -jar .../quarkus-app/quarkus-run.jar`: cannot find the application");
    }
}
