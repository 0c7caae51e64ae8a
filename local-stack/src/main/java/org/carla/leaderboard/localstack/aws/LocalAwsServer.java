package org.carla.leaderboard.localstack.aws;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.localstack.LocalServer;
import org.carla.leaderboard.localstack.StackComponent;
import org.carla.leaderboard.localstack.StackContext;
import org.carla.leaderboard.localstack.StackCredentials;
import org.carla.leaderboard.localstack.process.FreePort;
import org.carla.leaderboard.localstack.process.ServerProcess;
import org.carla.leaderboard.localstack.process.ServerStartException;
import org.carla.leaderboard.localstack.servers.common.ServerLauncher;

import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * A local AWS server in a process of its own on 127.0.0.1, behind its IAM gate: the gate (in the same process) listens
 * on the configured port or a free one (another free one if that was taken meanwhile) and the server on a loopback
 * port of its own; ready when a real API call succeeds through the gate, then provisioned by the administrator.
 * Subclasses say how to start it (its data in files of the work dir, so that {@link #kill()} and {@link #start()}
 * keep it), which call proves it ready, and what to create. The gate's configuration is {@value #GATES} and its
 * decisions {@value #DECISIONS} in the server's folder.
 */
abstract class LocalAwsServer implements StackComponent, LocalServer {

    // Two shared cores and a cold JVM: ready within seconds usually, but minutes when other builds share the cores (an
    // ElasticMQ took more than 90 s at a load of 40). A server that exits or cannot bind fails at once; never forever.
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(5);
    /** The gates' configuration, owner-only: it holds every principal's secret. */
    static final String GATES = "gates.json";
    /** Every IAM decision of the server's gates, a line each ({@code org.carla.leaderboard.localstack.gate}). */
    public static final String DECISIONS = "access.log";

    private final String name;
    private ServerProcess process;
    private URI endpoint;
    private StackContext context;
    private List<String> command;

    LocalAwsServer(String name) {
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final synchronized void start(StackContext context) throws Exception {
        this.context = context;
        for (int attempt = 1; ; attempt++) {
            int port = context.port() != 0 ? context.port() : FreePort.onLoopback();
            int serverPort = FreePort.onLoopback();
            URI candidate = URI.create("http://127.0.0.1:" + port);
            command = command(context, port, serverPort);
            context.access().writeGates(context.workDir().resolve(GATES), context.workDir().resolve(DECISIONS),
                    gates(port, serverPort));
            process = ServerProcess.start(name, command, context.workDir(), context.workDir().resolve(name + ".log"));
            try {
                process.awaitReady(READY_TIMEOUT, () -> probeAnswer(candidate, context));
                endpoint = candidate;
                break;
            } catch (ServerStartException e) {
                process.close(stopGrace());
                if (!e.retryable() || context.port() != 0 || attempt == FreePort.TRIES_WHEN_TAKEN) {
                    throw e;
                }
            }
        }
        provision(endpoint, context);
    }

    private void probeAnswer(URI candidate, StackContext context) throws Exception {
        try {
            probe(candidate, context);
        } catch (AwsServiceException e) {
            if (e.statusCode() >= 400 && e.statusCode() < 500) {
                // Something is up there and says no: waiting will not change its mind. It may be another server that
                // took the port first (another module's stack, under -T2), so a port of our own choice is tried anew.
                throw new ServerStartException(name + " refuses the stack's request (or another server holds port "
                        + candidate.getPort() + "): " + e.getMessage(), true);
            }
            throw e;
        }
    }

    @Override
    public synchronized void kill() {
        running().kill();
    }

    /** The same command line as the first start: the same port, the same data files. */
    @Override
    public synchronized void start() {
        if (running().isAlive()) {
            return;
        }
        process = ServerProcess.start(name, command, context.workDir(), context.workDir().resolve(name + ".log"));
        try {
            process.awaitReady(READY_TIMEOUT, () -> {
                probeAnswer(endpoint, context);
                restored(endpoint, context);
            });
        } catch (ServerStartException e) {
            process.kill();
            throw e;
        }
    }

    @Override
    public synchronized void freeze() {
        running().freeze(true);
    }

    @Override
    public synchronized void thaw() {
        running().freeze(false);
    }

    @Override
    public synchronized boolean isUp() {
        return process != null && process.isAlive() && !process.isFrozen();
    }

    private ServerProcess running() {
        if (process == null || endpoint == null) {
            throw new IllegalStateException(name + " was never started");
        }
        return process;
    }

    /**
     * The command line of the server process whose gate listens on 127.0.0.1:{@code port} and whose server on
     * {@code serverPort}, its data in the work dir; also the one a {@link #start()} after {@link #kill()} runs again.
     * The first start begins with no data.
     */
    abstract List<String> command(StackContext context, int port, int serverPort) throws Exception;

    /** The gates of the process: by default one, speaking for {@link #quarkusService()}. */
    List<Map<String, Object>> gates(int port, int serverPort) {
        return List.of(StackAccess.gate(quarkusService(), port, serverPort));
    }

    /** The JVM option that points the server's launcher at its gates' configuration. */
    static String gatesOption(StackContext context) {
        return "-D" + ServerLauncher.GATES + "=" + context.workDir().resolve(GATES).toAbsolutePath();
    }

    /** One real request; throws while the server is not ready. */
    abstract void probe(URI endpoint, StackContext context) throws Exception;

    /**
     * Throws while a restarted server does not yet hold what it was provisioned with: a server may answer before it
     * has loaded its data, a window that the AWS service it stands in for never shows. By default none.
     */
    void restored(URI endpoint, StackContext context) throws Exception {
    }

    /** Creates what the configuration asks for (queues, tables, buckets). */
    abstract void provision(URI endpoint, StackContext context) throws Exception;

    /** The Quarkiverse extension's config prefix: {@code sqs}, {@code dynamodb}, {@code s3}. */
    abstract String quarkusService();

    /** Configuration keys beyond the client's endpoint, region and credentials. */
    Map<String, String> extraQuarkusConfig() {
        return Map.of();
    }

    @Override
    public Map<String, URI> endpoints() {
        return endpoint == null ? Map.of() : Map.of(name, endpoint);
    }

    @Override
    public Map<String, String> quarkusConfig() {
        if (endpoint == null) {
            return Map.of();
        }
        String prefix = "quarkus." + quarkusService() + ".";
        var config = new LinkedHashMap<String, String>();
        config.put(prefix + "endpoint-override", endpoint.toString());
        config.put(prefix + "aws.region", context.region());
        // The stack replaces the extensions' containers (and this machine has no Docker).
        config.put(prefix + "devservices.enabled", "false");
        config.putAll(extraQuarkusConfig());
        return config;
    }

    @Override
    public Map<String, String> quarkusCredentials(StackCredentials credentials) {
        if (endpoint == null) {
            return Map.of();
        }
        return StackAccess.quarkusCredentials(quarkusService(), credentials);
    }

    @Override
    public synchronized List<ProcessHandle> processes() {
        return process == null ? List.of() : List.of(process.handle());
    }

    URI endpoint() {
        if (endpoint == null) {
            throw new IllegalStateException(name + " is not running");
        }
        return endpoint;
    }

    StackContext context() {
        return context;
    }

    @Override
    public synchronized void close() {
        if (process != null) {
            process.close(stopGrace());
        }
    }

    /** How long a stop waits after SIGTERM before SIGKILL. */
    protected Duration stopGrace() {
        return ServerProcess.STOP_GRACE;
    }
}
