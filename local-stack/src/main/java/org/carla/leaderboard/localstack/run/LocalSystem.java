package org.carla.leaderboard.localstack.run;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.carla.leaderboard.localstack.KubernetesComponent;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;

/**
 * The whole system on this machine: the local stack (ElasticMQ, DynamoDB Local, S3Proxy, the EvalAI stand-in, the
 * Kubernetes API server with the Job runner), the three services and ops-console as packaged (jars or native
 * executables, {@link Packaging}), pointed at it, each signing as the IAM role its ServiceAccount assumes.
 * {@link #close()} stops the services, then the stack, and a shutdown hook does the same on Ctrl-C.
 */
public final class LocalSystem implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LocalSystem.class.getName());
    static final Duration READY_TIMEOUT = Duration.ofSeconds(180);

    private final LocalRunConfig config;
    private final RunningStack stack;
    private final Map<String, ServiceProcess> services = new LinkedHashMap<>();
    private final Thread shutdownHook = new Thread(this::close, "local-system-shutdown");
    private boolean closed;

    private LocalSystem(LocalRunConfig config, RunningStack stack) {
        this.config = config;
        this.stack = stack;
    }

    /** Starts the stack, then the services (and ops-console) in parallel; returns once every one is ready. */
    public static LocalSystem start(LocalRunConfig config) {
        for (String module : LocalRunConfig.PROGRAMS) {
            if (!Files.isRegularFile(config.program(module))) {
                throw new IllegalStateException(config.program(module) + " is missing: package it first ("
                        + config.packaging().buildHint() + ")");
            }
        }
        config.prepare();
        RunningStack stack = LocalStack.builder()
                .components("sqs", "dynamodb", "s3", "evalai", "kubernetes")
                .workDir(config.stackDir())
                .evaluation(config.evaluation())
                .settings(config.stackSettings())
                .start();
        var system = new LocalSystem(config, stack);
        Runtime.getRuntime().addShutdownHook(system.shutdownHook);
        try {
            var starts = new ArrayList<CompletableFuture<ServiceProcess>>();
            for (String service : LocalRunConfig.SERVICES) {
                starts.add(CompletableFuture.supplyAsync(() -> ServiceProcess.start(service, system.command(service),
                        config.serviceDir(service), system.serviceConfig(service),
                        READY_TIMEOUT)));
            }
            RuntimeException failure = null;
            for (var start : starts) {
                try {
                    var service = start.join();
                    synchronized (system) {
                        system.services.put(service.name(), service);
                    }
                } catch (CompletionException e) {
                    var cause = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                    if (failure == null) {
                        failure = cause;
                    } else {
                        failure.addSuppressed(cause);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
        } catch (RuntimeException e) {
            system.close();
            throw e;
        }
        return system;
    }

    /** The stack's configuration, signed as the IAM role of the service's ServiceAccount, and the run's own keys. */
    private Map<String, String> serviceConfig(String service) {
        var all = new HashMap<>(stack.quarkusConfig(config.builtProperties(service).serviceAccount()));
        all.putAll(config.serviceConfig(service));
        return all;
    }

    /**
     * The service's command, with the identity of its ServiceAccount for the Kubernetes API server as system properties
     * (fabric8 reads the token file they name, as in a pod); a native executable takes them after its name.
     */
    private List<String> command(String service) {
        var kubernetes = stack.component(KubernetesComponent.NAME, KubernetesComponent.class);
        var properties = kubernetes.identity(config.builtProperties(service).serviceAccount()).entrySet().stream()
                .map(property -> "-D" + property.getKey() + "=" + property.getValue()).toList();
        return config.serviceCommand(service, properties);
    }

    public RunningStack stack() {
        return stack;
    }

    public LocalRunConfig config() {
        return config;
    }

    public synchronized ServiceProcess service(String name) {
        var service = services.get(name);
        if (service == null) {
            throw new IllegalArgumentException("no service " + name + " (services: " + services.keySet() + ")");
        }
        return service;
    }

    /** Stops a service as Kubernetes would (SIGTERM, grace period) and starts it again with the same configuration. */
    public void restart(String name) {
        service(name).restart(READY_TIMEOUT);
    }

    /** Kills a service with SIGKILL: no shutdown, no goodbye (a crash, the OOM killer); {@link #start} brings it back. */
    public void kill(String name) {
        service(name).kill();
    }

    /** Starts a killed or stopped service again with the same configuration; returns once it is ready. */
    public void start(String name) {
        service(name).start(READY_TIMEOUT);
    }

    /** The operators' page (ops-console), signed in to with {@link LocalRunConfig#operatorToken()}. */
    public String consoleUrl() {
        return "http://127.0.0.1:" + service(LocalRunConfig.CONSOLE).port() + "/";
    }

    /** Every endpoint: the stack's components and the services' HTTP ports (health, metrics). */
    public synchronized Map<String, String> endpoints() {
        var endpoints = new LinkedHashMap<String, String>();
        stack.endpoints().forEach((name, uri) -> endpoints.put(name, uri.toString()));
        services.values().forEach(service -> endpoints.put(service.name(), "http://127.0.0.1:" + service.port()
                + "/q/health  (log " + service.log() + ")"));
        return endpoints;
    }

    /** Stops the services, then the stack (its Job pods and servers); idempotent. */
    @Override
    public void close() {
        List<ServiceProcess> toStop;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toStop = new ArrayList<>(services.values());
        }
        toStop.parallelStream().forEach(service -> {
            try {
                service.stop();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "stopping " + service.name() + " failed", e);
            }
        });
        stack.close();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: this may be the hook
        }
    }

    /** The processes this JVM started that are still alive (servers, services, pods' processes): none after close. */
    public static List<ProcessHandle> leftoverProcesses() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
    }
}
