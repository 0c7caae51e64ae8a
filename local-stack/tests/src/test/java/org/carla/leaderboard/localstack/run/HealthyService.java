package org.carla.leaderboard.localstack.run;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Properties;

import com.sun.net.httpserver.HttpServer;

/**
 * A service's stand-in for {@code ServiceProcessTests}, run from a jar as {@link ServiceProcess} runs a service: reads
 * {@code config/application.properties} as Quarkus does, answers {@code /q/health/ready}, and appends "goodbye" to
 * {@code shutdowns.txt} when it shuts down (a shutdown hook, which SIGKILL never runs).
 */
public final class HealthyService {

    public static void main(String[] args) throws Exception {
        var config = new Properties();
        try (InputStream in = Files.newInputStream(Path.of("config/application.properties"))) {
            config.load(in);
        }
        int port = Integer.parseInt(config.getProperty("quarkus.http.port"));
        var server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10);
        server.createContext("/q/health/ready", exchange -> {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Files.writeString(Path.of("shutdowns.txt"), "goodbye\n", StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }));
        Thread.currentThread().join();
    }
}
