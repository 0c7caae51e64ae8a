package org.carla.leaderboard.localstack.run;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.carla.leaderboard.localstack.process.FreePort;
import org.carla.leaderboard.localstack.process.LogSince;
import org.carla.leaderboard.localstack.process.ServerProcess;

/**
 * One of the services, run as packaged (its jar, or its native executable) as a process of its own, the way it runs in
 * its container. Its
 * configuration is written to {@code <workDir>/config/application.properties} (which Quarkus reads from the working
 * directory), never to the command line, so a token never shows in a process listing.
 */
public final class ServiceProcess implements AutoCloseable {

    private static final Duration GRACE = Duration.ofSeconds(10);
    /** What Quarkus logs before it exits when its HTTP port is bound already. */
    private static final String PORT_TAKEN = "seems to be in use by another process";

    private final String name;
    private final List<String> command;
    private final Path workDir;
    private final Map<String, String> config;
    private int port;
    private Process process;

    private ServiceProcess(String name, List<String> command, Path workDir, Map<String, String> config, int port) {
        this.name = name;
        this.command = List.copyOf(command);
        this.workDir = workDir;
        this.config = new TreeMap<>(config);
        this.port = port;
    }

    /**
     * Starts the service ({@code command}: {@code java ... -jar <jar>} or the native executable) and returns once its
     * readiness endpoint answers 200, or fails.
     */
    public static ServiceProcess start(String name, List<String> command, Path workDir, Map<String, String> config,
            Duration readyTimeout) {
        var service = new ServiceProcess(name, command, workDir, config, FreePort.onLoopback());
        for (int attempt = 1;; attempt++) {
            long logged = LogSince.mark(service.log());
            try {
                service.launch(readyTimeout);
                return service;
            } catch (IllegalStateException e) {
                // Nobody knows its port before this returns, so a port taken meanwhile is replaced by another one.
                if (attempt == FreePort.TRIES_WHEN_TAKEN || !service.loggedSince(logged, PORT_TAKEN)) {
                    throw e;
                }
                service.port = FreePort.onLoopback();
            }
        }
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public Path log() {
        return workDir.resolve(name + ".log");
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Stops the service as Kubernetes would (SIGTERM, then SIGKILL after the grace period) and starts it again. */
    public void restart(Duration readyTimeout) {
        stop();
        launch(readyTimeout);
    }

    /** SIGKILL with no grace, so no shutdown hook runs (a crash, the OOM killer, a lost node); waits for the exit. */
    public void kill() {
        if (process != null && process.isAlive()) {
            ServerProcess.kill(process, GRACE);
        }
    }

    /** Starts it again after {@link #kill()} or {@link #stop()}: same configuration, same port; nothing if it runs. */
    public void start(Duration readyTimeout) {
        if (isAlive()) {
            return;
        }
        launch(readyTimeout);
    }

    private void launch(Duration readyTimeout) {
        try {
            Files.createDirectories(workDir.resolve("config"));
            var properties = new Properties();
            properties.putAll(config);
            properties.put("quarkus.http.port", Integer.toString(port));
            properties.put("quarkus.http.host", "127.0.0.1");
            try (OutputStream out = Files.newOutputStream(workDir.resolve("config/application.properties"))) {
                properties.store(out, name + " on the local stack (written by the local run)");
            }
            process = new ProcessBuilder(command).directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
        awaitReady(readyTimeout);
    }

    private void awaitReady(Duration timeout) {
        var client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready"))
                .timeout(Duration.ofSeconds(2)).build();
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + " while starting; see "
                        + log());
            }
            try {
                if (client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + name, e);
            }
            try {
                process.waitFor(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + name, e);
            }
        }
        stop();
        throw new IllegalStateException(name + " was not ready within " + timeout.toSeconds() + " s; see " + log());
    }

    public void stop() {
        if (process == null || !process.isAlive()) {
            return;
        }
        var descendants = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    @Override
    public void close() {
        stop();
    }

    /** Whether the log, from byte {@code from} on (its first MiB), holds {@code text}. */
    private boolean loggedSince(long from, String text) {
        return LogSince.read(log(), from, 1024 * 1024).contains(text);
    }
}
