package org.carla.leaderboard.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A process the harness started: argv (never a shell), its output to a log file, the wall-clock time (epoch µs) at
 * which the harness saw it exit. {@link #close()} stops it and every descendant (SIGTERM, SIGKILL after 3 s).
 */
final class Child implements AutoCloseable {

    private final Process process;
    private final Path log;
    private volatile long exitMicros = -1;

    private Child(Process process, Path log) {
        this.process = process;
        this.log = log;
        process.onExit().thenRun(() -> exitMicros = Clock.micros());
    }

    static Child start(List<String> argv, Map<String, String> env, Path dir, Path log) {
        try {
            Files.createDirectories(dir);
            var builder = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            builder.environment().putAll(env);
            return new Child(builder.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + argv, e);
        }
    }

    long pid() {
        return process.pid();
    }

    Process process() {
        return process;
    }

    Path log() {
        return log;
    }

    boolean waitFor(Duration timeout) throws InterruptedException {
        boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (ended) {
            process.onExit().join(); // exitMicros is set
            while (exitMicros < 0) {
                Thread.onSpinWait();
            }
        }
        return ended;
    }

    int exitCode() {
        return process.exitValue();
    }

    long exitMicros() {
        return exitMicros;
    }

    /** Whether the log holds {@code text} yet. */
    boolean logContains(String text) {
        try {
            return Files.exists(log) && Files.readString(log).contains(text);
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        List<ProcessHandle> all = new java.util.ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        all.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (ProcessHandle handle : all) {
            while (handle.isAlive() && System.nanoTime() < deadline) {
                try {
                    handle.onExit().get(50, TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    // still alive: try again until the deadline
                }
            }
            handle.destroyForcibly();
        }
    }
}
