package org.carla.leaderboard.localstack.run;

import java.io.InputStream;
import java.net.BindException;
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
 * {@code shutdowns.txt} when it shuts down (a shutdown hook, which SIGKILL never runs). A port it cannot bind ends it
 * as it ends Quarkus, with Quarkus's message; {@code healthy.port-taken-once=true} makes its first start in a folder
 * find its port taken, as a service loses its port to another process between the choice and the bind.
 */
public final class HealthyService {

    public static void main(String[] args) throws Exception {
        var config = new Properties();
        try (InputStream in = Files.newInputStream(Path.of("config/application.properties"))) {
            config.load(in);
        }
        int port = Integer.parseInt(config.getProperty("quarkus.http.port"));
        HttpServer server;
        try {
            if (Boolean.parseBoolean(config.getProperty("healthy.port-taken-once"))
                    && Files.notExists(Path.of("port-taken-once"))) {
                Files.createFile(Path.of("port-taken-once"));
                throw new BindException("Address already in use");
            }
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10);
        } catch (BindException e) {
            System.out.println("ERROR: Port " + port + " seems to be in use by another process. Quarkus may already be"
                    + " running or the port is used by another application.");
            System.exit(1);
            return;
        }
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
