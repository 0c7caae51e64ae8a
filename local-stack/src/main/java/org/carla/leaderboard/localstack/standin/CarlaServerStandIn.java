package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Stands in for the CARLA server ({@code CarlaUE4.sh}) in the local run and the tests. Takes CARLA's arguments
 * ({@code -carla-rpc-port=N}; the rest is accepted and ignored), listens on 127.0.0.1:N after a start-up delay, and sends
 * every client a "tick" byte each {@value #TICK_MILLIS} ms until it is stopped, like a world that keeps ticking.
 *
 * <p>Knobs (environment): {@code CARLA_STANDIN_STARTUP_SECONDS} (default 0), {@code CARLA_STANDIN_DIE_AFTER_SECONDS}
 * (that long after it listens, the process ends abruptly with code 139, as a segfault would),
 * {@code CARLA_STANDIN_HANG=true} (keep the port open but stop ticking), {@code CARLA_STANDIN_DIE_ONCE_MARKER} (a file:
 * die only when it does not exist yet, and create it, so a restarted pair runs to the end).
 */
public final class CarlaServerStandIn implements AutoCloseable {

    static final int TICK_MILLIS = 50;
    static final int CRASH_EXIT_CODE = 139;

    /** The knobs, from the environment. */
    public record Knobs(Duration startup, Optional<Duration> dieAfter, boolean hang, Optional<Path> dieOnceMarker) {

        public static Knobs from(Map<String, String> env) {
            return new Knobs(seconds(env, "CARLA_STANDIN_STARTUP_SECONDS").orElse(Duration.ZERO),
                    seconds(env, "CARLA_STANDIN_DIE_AFTER_SECONDS"),
                    Boolean.parseBoolean(env.getOrDefault("CARLA_STANDIN_HANG", "false")),
                    Optional.ofNullable(env.get("CARLA_STANDIN_DIE_ONCE_MARKER")).filter(s -> !s.isBlank()).map(Path::of));
        }
    }

    private final ServerSocket server;
    private final ScheduledExecutorService timers;
    private final Set<Socket> clients = ConcurrentHashMap.newKeySet();
    private final boolean hang;

    private CarlaServerStandIn(ServerSocket server, ScheduledExecutorService timers, boolean hang) {
        this.server = server;
        this.timers = timers;
        this.hang = hang;
    }

    public static void main(String[] args) throws Exception {
        CarlaServerStandIn carla = start(port(args), Knobs.from(SubmissionKnobs.environment(System.getenv())), () -> {
            say("CARLA stand-in: Signal 11 caught (simulated crash), exit " + CRASH_EXIT_CODE);
            Runtime.getRuntime().halt(CRASH_EXIT_CODE);
        });
        // SIGTERM: let go of the port at once (a JVM blocked in accept() otherwise takes ~0.3 s to exit)
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                carla.close();
            } catch (IOException e) {
                // exiting anyway
            }
        }));
        carla.acceptForever();
    }

    /**
     * Waits the start-up delay, then listens; {@code die} runs when the knobs say CARLA dies (the process main halts).
     */
    public static CarlaServerStandIn start(int port, Knobs knobs, Runnable die) throws IOException, InterruptedException {
        say("CARLA stand-in: starting, port " + port + ", start-up " + knobs.startup().toMillis() + " ms");
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(1, daemon("carla-standin-timer"));
        try {
            timers.schedule(() -> { }, knobs.startup().toMillis(), TimeUnit.MILLISECONDS).get(); // CARLA's start-up time
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        CarlaServerStandIn carla = new CarlaServerStandIn(server, timers, knobs.hang());
        say("CARLA stand-in: listening on 127.0.0.1:" + server.getLocalPort() + (knobs.hang() ? " (hung: no ticks)" : ""));
        if (knobs.dieAfter().isPresent() && claimDeath(knobs.dieOnceMarker())) {
            timers.schedule(die, knobs.dieAfter().get().toMillis(), TimeUnit.MILLISECONDS);
        }
        return carla;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Serves clients on the calling thread until the server is closed. */
    public void acceptForever() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                clients.add(client);
                daemon("carla-client").newThread(() -> serve(client)).start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Serves clients in the background (for a caller that keeps its thread). */
    public CarlaServerStandIn inBackground() {
        daemon("carla-accept").newThread(this::acceptForever).start();
        return this;
    }

    private void serve(Socket client) {
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
                } catch (SocketTimeoutException e) {
                    // a tick period passed: tick again
                }
            }
        } catch (IOException e) {
            // the client went away, or the server was closed
        } finally {
            clients.remove(client);
        }
    }

    /** Stops listening and drops every client, as a server that died would. */
    @Override
    public void close() throws IOException {
        server.close();
        for (Socket client : clients) {
            client.close();
        }
        timers.shutdownNow();
    }

    /** Whether this run dies: always without a marker; with one, only the first run (which creates it). */
    private static boolean claimDeath(Optional<Path> marker) throws IOException {
        if (marker.isEmpty()) {
            return true;
        }
        try {
            Files.createFile(marker.get());
            return true;
        } catch (FileAlreadyExistsException e) {
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

    static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    static void say(String line) {
        System.out.println(line);
    }
}
