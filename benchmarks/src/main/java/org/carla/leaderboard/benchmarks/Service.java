package org.carla.leaderboard.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.carla.leaderboard.localstack.process.FreePort;

/**
 * A service run from its packaged jar ({@code java -jar <module>/target/quarkus-app/quarkus-run.jar}) or as its native
 * executable ({@code <module>/target/<module>-<version>-runner}) in a work folder
 * of its own, configured by {@code <workDir>/config/application.properties} (read by Quarkus from the working
 * directory; nothing on the command line, so the token never shows in a process listing). The idea of the lead's
 * {@code local-stack} {@code run/ServiceProcess}.
 */
final class Service implements AutoCloseable {

    /**
     * HTTP/1.1, as a Prometheus scrape or a kubelet probe asks: JDK 17's default HTTP/2 client tries an h2c upgrade on
     * plain HTTP, and a scrape of the launcher hung in it for minutes past its request timeout.
     */
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();

    private final String name;
    private final Child child;
    private final int port;
    private Duration readyAfter;

    private Service(String name, Child child, int port) {
        this.name = name;
        this.child = child;
        this.port = port;
    }

    /**
     * Starts the service with {@code command} (its jar on a JVM, or its native executable) and returns once
     * {@code /q/health/ready} answers 200.
     */
    static Service start(String name, List<String> command, Path workDir, Map<String, String> config,
            Duration readyTimeout) throws Exception {
        SupervisionBenchmark.deleteRecursively(workDir);
        Files.createDirectories(workDir.resolve("config"));
        int port = FreePort.onLoopback();
        var properties = new Properties();
        config.forEach((key, value) -> {
            properties.put(key, value);
            // The jar's own %prod.<key> would otherwise win over an unprofiled key of a higher-ordinal source.
            properties.put("%prod." + key, value);
        });
        properties.put("quarkus.http.port", Integer.toString(port));
        properties.put("%prod.quarkus.http.port", Integer.toString(port));
        properties.put("quarkus.http.host", "127.0.0.1");
        try (OutputStream out = Files.newOutputStream(workDir.resolve("config/application.properties"))) {
            properties.store(out, name + " for the benchmarks");
        }
        long begin = System.nanoTime();
        Child child = Child.start(command, Map.of(), workDir, workDir.resolve(name + ".log"));
        var service = new Service(name, child, port);
        try {
            service.awaitReady(readyTimeout);
            service.readyAfter = Duration.ofNanos(System.nanoTime() - begin);
        } catch (Exception e) {
            service.close();
            throw e;
        }
        return service;
    }

    /** From the start of its process to its first ready answer (polled every 20 ms). */
    Duration readyAfter() {
        return readyAfter;
    }

    long pid() {
        return child.pid();
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    Path log() {
        return child.log();
    }

    /** The service's {@code /q/metrics} (Prometheus text). */
    String metricsText() throws Exception {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/metrics"))
                .timeout(Duration.ofSeconds(10)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The sum of a metric's samples on the service's {@code /q/metrics} (Prometheus text), every label set. */
    double metric(String name) throws Exception {
        return metricsText().lines().filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    private void awaitReady(Duration timeout) throws Exception {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready"))
                .timeout(Duration.ofSeconds(3)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!child.process().isAlive()) {
                throw new IllegalStateException(name + " exited with " + child.exitCode() + "; see " + child.log());
            }
            try {
                if (HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException(name + " not ready within " + timeout.toSeconds() + " s; see " + child.log());
    }

    @Override
    public void close() {
        child.close();
    }
}
