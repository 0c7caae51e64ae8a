package org.carla.leaderboard.localstack.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A local server running as a JVM process of its own, its output appended to a log file. Stopping is SIGTERM, then
 * SIGKILL after a grace period. The server's stdin stays a pipe from this JVM: the launchers in
 * {@code local-stack/servers} exit when it closes, so even a killed parent leaves no server behind.
 */
public final class ServerProcess implements AutoCloseable {

    public static final Duration STOP_GRACE = Duration.ofSeconds(10);

    private static final Logger LOG = Logger.getLogger(ServerProcess.class.getName());
    private static final Duration POLL = Duration.ofMillis(100);

    private final String name;
    private final Process process;
    private final Path log;
    /** Where this start's part of the log begins: a retry appends to the log of the start that failed. */
    private final long logOffset;
    private final ClassDataArchive archive;
    private volatile boolean frozen;

    private ServerProcess(String name, Process process, Path log, long logOffset, ClassDataArchive archive) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.logOffset = logOffset;
        this.archive = archive;
    }

    /** {@code java <jvmOptions> -cp <class path> <mainClass> <args>} with this JVM's {@code java}. */
    public static List<String> javaCommand(ServerClassPath classPath, List<String> jvmOptions, String mainClass,
            List<String> args) {
        var command = new ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Local servers for a developer's machine and the tests: start fast and stay small.
        command.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx384m", "-Djava.awt.headless=true"));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath.asArgument());
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    /** Starts {@code command}; a JVM's with its class path's archive ({@link ClassDataArchive}). */
    public static ServerProcess start(String name, List<String> command, Path workDir, Path log) {
        return start(name, ClassDataArchive.of(command, ClassDataArchive.defaultFolder()), workDir, log);
    }

    static ServerProcess start(String name, ClassDataArchive archive, Path workDir, Path log) {
        List<String> command = archive.command();
        try {
            Files.createDirectories(log.getParent());
            long logOffset = LogSince.mark(log);
            Files.writeString(log, "== " + String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            Process process = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            return new ServerProcess(name, process, log, logOffset, archive);
        } catch (IOException e) {
            archive.exited();
            throw new UncheckedIOException("cannot start " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * A request that succeeds once the server is ready; an exception means not yet, except a
     * {@link ServerStartException}, which means never (the server answers but refuses).
     */
    @FunctionalInterface
    public interface Probe {
        void check() throws Exception;
    }

    /**
     * Polls the probe until it succeeds, the process exits (fails at once, with the end of its log) or the timeout
     * passes. The pause between polls is a wait on the process's exit, so a dying server is noticed immediately. A
     * start that makes its class path's archive dumps it once ready ({@link ClassDataArchive#ready}).
     */
    public void awaitReady(Duration timeout, Probe probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (true) {
            if (!process.isAlive()) {
                throw new ServerStartException(name + " exited with code " + process.exitValue()
                        + " before it was ready; " + log + " ends with:\n" + logTail(20), bindFailed());
            }
            if (bindFailed()) {
                // ElasticMQ logs the failed bind and keeps running without a listener.
                close();
                throw new ServerStartException(name + " could not bind its port; " + log + " ends with:\n"
                        + logTail(20), true);
            }
            try {
                probe.check();
                if (!archive.ready(process.toHandle())) {
                    throw new ServerStartException(name + " exited as its class-data archive was dumped (the JVM"
                            + " refused the class path; the next start runs without one); " + log + " ends with:\n"
                            + logTail(20), true);
                }
                return;
            } catch (ServerStartException e) {
                throw e;
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() > deadline) {
                throw new ServerStartException(name + " was not ready after " + timeout + " (last answer: " + last
                        + "); " + log + " ends with:\n" + logTail(20), false);
            }
            try {
                process.waitFor(POLL.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ServerStartException("interrupted while waiting for " + name, false);
            }
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public boolean isFrozen() {
        return frozen && process.isAlive();
    }

    public ProcessHandle handle() {
        return process.toHandle();
    }

    public Path log() {
        return log;
    }

    /** SIGKILL, no shutdown (a crash, the OOM killer); waits for the exit. */
    public void kill() {
        kill(process, STOP_GRACE);
        archive.exited();
    }

    /** SIGKILL to a process of the stack (a server, a service) and its descendants; waits up to {@code wait}. */
    public static void kill(Process process, Duration wait) {
        var descendants = process.descendants().toList();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
        try {
            process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGSTOP (true) or SIGCONT (false): a hung server, then one that carries on. Java has no API for either. */
    public void freeze(boolean frozen) {
        if (!process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", frozen ? "-STOP" : "-CONT", Long.toString(process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + (frozen ? "-STOP " : "-CONT ") + process.pid() + " failed");
            }
            this.frozen = frozen;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot signal " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    /** SIGTERM, then SIGKILL when the server has not exited after {@link #STOP_GRACE}; waits for the exit. */
    @Override
    public void close() {
        close(STOP_GRACE);
    }

    /** SIGTERM, then SIGKILL when the server has not exited after {@code grace}; waits for the exit. */
    public void close(Duration grace) {
        if (!process.isAlive()) {
            archive.exited();
            return;
        }
        if (frozen) {
            // A frozen server would hold SIGTERM until the grace period ends.
            freeze(false);
        }
        var descendants = process.descendants().toList();
        process.destroy();
        boolean stopped = false;
        try {
            stopped = process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
            if (!stopped) {
                LOG.warning(() -> name + " did not stop within " + grace + "; killing it");
                process.destroyForcibly();
                process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        if (process.isAlive()) {
            LOG.log(Level.SEVERE, () -> name + " (pid " + process.pid() + ") is still running after SIGKILL");
        }
        archive.exited();
    }

    private boolean bindFailed() {
        String start = logStart();
        return start.contains("Address already in use") || start.contains("BindException")
                || start.contains("Bind failed") || start.contains("Failed to bind");
    }

    /**
     * The first 256 KiB of this start's part of the log: its start-up failure is there (not an earlier start's, which
     * a retry on another port must not take for its own), and a long log is not re-read on every poll.
     */
    private String logStart() {
        return LogSince.read(log, logOffset, 256 * 1024);
    }

    private String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
