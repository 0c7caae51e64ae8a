package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Stands in for the CARLA server ({@code CarlaUE4.sh}) in the local run and the tests. Takes CARLA's arguments
 * ({@code -carla-rpc-port=N}; the rest is accepted and ignored), listens on 127.0.0.1:N after a start-up delay, and sends
 * every client a "tick" byte each {@value #TICK_MILLIS} ms until it is stopped, like a world that keeps ticking.
 *
 * <p>Knobs (environment): {@code CARLA_STANDIN_STARTUP_SECONDS} (default 0), {@code CARLA_STANDIN_DIE_AFTER_SECONDS}
 * (exit abruptly with code 139, as a segfault would, that long after listening), {@code CARLA_STANDIN_HANG=true} (keep
 * the port open but stop ticking), {@code CARLA_STANDIN_DIE_ONCE_MARKER} (a file: die only when it does not exist yet,
 * and create it, so a restarted pair runs to the end).
 */
public final class CarlaServerStandIn {

    static final int TICK_MILLIS = 50;
    static final int CRASH_EXIT_CODE = 139;

    private CarlaServerStandIn() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> env = System.getenv();
        int port = port(args);
        Duration startup = seconds(env, "CARLA_STANDIN_STARTUP_SECONDS").orElse(Duration.ZERO);
        Optional<Duration> dieAfter = seconds(env, "CARLA_STANDIN_DIE_AFTER_SECONDS");
        boolean hang = Boolean.parseBoolean(env.getOrDefault("CARLA_STANDIN_HANG", "false"));
        Optional<Path> dieOnce = Optional.ofNullable(env.get("CARLA_STANDIN_DIE_ONCE_MARKER")).filter(s -> !s.isBlank())
                .map(Path::of);

        say("CARLA stand-in: starting, port " + port + ", start-up " + startup.toMillis() + " ms");
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(2, daemon());
        timers.schedule(() -> { }, startup.toMillis(), TimeUnit.MILLISECONDS).get(); // CARLA's start-up time
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            say("CARLA stand-in: listening on 127.0.0.1:" + port + (hang ? " (will hang: no ticks)" : ""));
            if (dieAfter.isPresent() && claimDeath(dieOnce)) {
                timers.schedule(() -> {
                    say("CARLA stand-in: Signal 11 caught (simulated crash), exit " + CRASH_EXIT_CODE);
                    Runtime.getRuntime().halt(CRASH_EXIT_CODE);
                }, dieAfter.get().toMillis(), TimeUnit.MILLISECONDS);
            }
            while (true) {
                Socket client = server.accept();
                Thread thread = new Thread(() -> serve(client, hang), "client-" + client.getPort());
                thread.setDaemon(true);
                thread.start();
            }
        }
    }

    private static void serve(Socket client, boolean hang) {
        try (client; InputStream in = client.getInputStream(); OutputStream out = client.getOutputStream()) {
            client.setSoTimeout(TICK_MILLIS);
            while (true) {
                if (!hang) {
                    out.write('t');
                    out.flush();
                }
                try {
                    if (in.read() < 0) {
                        return;
                    }
                } catch (java.net.SocketTimeoutException e) {
                    // the tick period passed: tick again
                }
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    /** Whether this run dies: always without a marker; with one, only the first run (which creates it). */
    private static boolean claimDeath(Optional<Path> marker) throws IOException {
        if (marker.isEmpty()) {
            return true;
        }
        try {
            Files.createFile(marker.get());
            return true;
        } catch (java.nio.file.FileAlreadyExistsException e) {
            say("CARLA stand-in: " + marker.get() + " exists: this run does not die");
            return false;
        }
    }

    static int port(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("-carla-rpc-port=")) {
                return Integer.parseInt(args[i].substring("-carla-rpc-port=".length()));
            }
            if (args[i].equals("--port") && i + 1 < args.length) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return 2000;
    }

    static Optional<Duration> seconds(Map<String, String> env, String name) {
        return Optional.ofNullable(env.get(name)).filter(s -> !s.isBlank())
                .map(s -> Duration.ofMillis(Math.round(Double.parseDouble(s.trim()) * 1000)));
    }

    static java.util.concurrent.ThreadFactory daemon() {
        return runnable -> {
            Thread thread = new Thread(runnable, "carla-standin-timer");
            thread.setDaemon(true);
            return thread;
        };
    }

    static void say(String line) {
        System.out.println(line);
    }
}
