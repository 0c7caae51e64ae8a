package org.carla.leaderboard.localstack;

import java.io.IOException;
import java.net.URI;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.carla.leaderboard.domain.track.EvaluationConfig;
import org.carla.leaderboard.localstack.aws.DynamoDbLocalServer;
import org.carla.leaderboard.localstack.aws.ElasticMqServer;
import org.carla.leaderboard.localstack.aws.S3ProxyServer;
import org.carla.leaderboard.localstack.aws.StackAccess;
import org.carla.leaderboard.localstack.evalai.EvalAiStandIn;
import org.carla.leaderboard.localstack.kubernetes.LocalJobRunner;

import io.fabric8.kubernetes.client.KubernetesClient;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A started local stack: clients and endpoints of its components, the Quarkus configuration that points a service at
 * it. {@link #close()} stops every component (servers: SIGTERM, then SIGKILL after a grace period); a JVM shutdown
 * hook does the same if the owner never closes it.
 */
public final class RunningStack implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RunningStack.class.getName());

    private final Path workDir;
    private final boolean temporaryWorkDir;
    private final StackAccess access;
    private final String region;
    private final EvaluationConfig evaluation;
    private final Map<String, String> evaluationOverrides;
    private final List<StackComponent> components = new ArrayList<>();
    private final Set<String> started = new LinkedHashSet<>();
    private final Thread shutdownHook = new Thread(this::close, "local-stack-shutdown");
    private final Object closeLock = new Object();
    private boolean closed;

    RunningStack(Path workDir, boolean temporaryWorkDir, StackAccess access, String region,
            EvaluationConfig evaluation, Map<String, String> evaluationOverrides) {
        this.workDir = workDir;
        this.temporaryWorkDir = temporaryWorkDir;
        this.access = access;
        this.region = region;
        this.evaluation = evaluation;
        this.evaluationOverrides = Map.copyOf(evaluationOverrides);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    synchronized void add(StackComponent component) {
        components.add(component);
    }

    synchronized void markStarted(StackComponent component) {
        started.add(component.name());
    }

    /** The names of the running components, in start order. */
    public synchronized Set<String> started() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(started));
    }

    public SqsClient sqs() {
        return component(ElasticMqServer.NAME, ElasticMqServer.class).client();
    }

    public DynamoDbClient dynamoDb() {
        return component(DynamoDbLocalServer.NAME, DynamoDbLocalServer.class).client();
    }

    public S3Client s3() {
        return component(S3ProxyServer.NAME, S3ProxyServer.class).client();
    }

    /** The URL of a provisioned queue ({@code submissions}, {@code launch-requests}, {@code submission-events}). */
    public String queueUrl(String queue) {
        return component(ElasticMqServer.NAME, ElasticMqServer.class).queueUrl(queue);
    }

    /** The URL of the queue's dead-letter queue {@code <queue>-dlq}. */
    public String deadLetterQueueUrl(String queue) {
        return component(ElasticMqServer.NAME, ElasticMqServer.class).deadLetterQueueUrl(queue);
    }

    /** The EvalAI stand-in: its host-side controls (create, cancel, resume submissions; faults) and recorded calls. */
    public EvalAiStandIn evalAi() {
        return component(EvalAiComponent.NAME, EvalAiComponent.class).standIn();
    }

    /** A fabric8 client on the stack's Kubernetes API server, in the {@code submissions} namespace. */
    public KubernetesClient kubernetes() {
        return component(KubernetesComponent.NAME, KubernetesComponent.class).client();
    }

    /**
     * A server to take down and bring back ({@code sqs}, {@code dynamodb}, {@code s3}): kill/start, freeze/thaw, each
     * keeping its data and port. Fails clearly for a component that is not running or not such a server.
     */
    public LocalServer server(String name) {
        StackComponent component = component(name, StackComponent.class);
        if (!(component instanceof LocalServer server)) {
            throw new IllegalArgumentException("'" + name + "' cannot be taken down and brought back; servers: sqs, "
                    + "dynamodb, s3 (the EvalAI stand-in has faults of its own: evalAi().failFor(...), ...)");
        }
        return server;
    }

    /** The local Job runner of the {@code kubernetes} component: {@code gpuCapacity(n)}, {@code killContainer(...)}. */
    public LocalJobRunner jobRunner() {
        return component(KubernetesComponent.NAME, KubernetesComponent.class).runner();
    }

    /** Every component's endpoints by name, in start order. */
    public synchronized Map<String, URI> endpoints() {
        var endpoints = new LinkedHashMap<String, URI>();
        components.stream().filter(c -> started.contains(c.name())).forEach(c -> endpoints.putAll(c.endpoints()));
        return endpoints;
    }

    /**
     * The configuration overrides that point a Quarkus service at this stack, without AWS credentials: the clients'
     * endpoints and region, {@code queues.<name>.url} / {@code .dead-letter-url}, the other components' keys, the
     * deployment's bucket and table names and the {@code evaluation.*} overrides. Sorted by key.
     */
    public synchronized Map<String, String> quarkusConfig() {
        var config = new TreeMap<String, String>(evaluationOverrides);
        components.stream().filter(c -> started.contains(c.name())).forEach(c -> config.putAll(c.quarkusConfig()));
        return config;
    }

    /**
     * {@link #quarkusConfig()} with the AWS clients signing as the IAM role the ServiceAccount assumes (what IRSA gives
     * the service's pods): how a service runs against the stack.
     */
    public Map<String, String> quarkusConfig(ServiceAccount account) {
        return quarkusConfig(credentials(account));
    }

    /** {@link #quarkusConfig()} with the AWS clients signing with these credentials. */
    public synchronized Map<String, String> quarkusConfig(StackCredentials signer) {
        var config = new TreeMap<>(quarkusConfig());
        components.stream().filter(c -> started.contains(c.name()))
                .forEach(c -> config.putAll(c.quarkusCredentials(signer)));
        return config;
    }

    /** A started component by name, typed; fails clearly when the stack was started without it. */
    public synchronized <T extends StackComponent> T component(String name, Class<T> type) {
        return components.stream()
                .filter(c -> c.name().equals(name) && started.contains(name))
                .findFirst()
                .map(type::cast)
                .orElseThrow(() -> new IllegalStateException("the local stack runs no '" + name
                        + "' component (running: " + started + "); request it with components(..., \"" + name
                        + "\") or the LocalStackResource init arg components"));
    }

    /** The operating-system processes of every component (servers, Job pods), for checks that none outlives it. */
    public synchronized List<ProcessHandle> processes() {
        return components.stream().flatMap(c -> c.processes().stream()).toList();
    }

    public Path workDir() {
        return workDir;
    }

    /** The administrator's credentials: an operator's, for tests that seed or inspect; no service uses them. */
    public StackCredentials credentials() {
        return access.administrator();
    }

    /** The credentials of the IAM role the ServiceAccount assumes (IRSA); fails when no role of deploy/aws trusts it. */
    public StackCredentials credentials(ServiceAccount account) {
        return access.of(account);
    }

    /** Every principal of deploy/aws with its keys, the deployment the stack is built from. */
    public StackAccess access() {
        return access;
    }

    public String region() {
        return region;
    }

    /** The leaderboards and phases the stack was provisioned from. */
    public EvaluationConfig evaluation() {
        return evaluation;
    }

    /** Stops every component, last started first; idempotent, and a second caller returns once it is done. */
    @Override
    public void close() {
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closed = true;
            List<StackComponent> toClose;
            synchronized (this) {
                toClose = new ArrayList<>(components);
                started.clear();
            }
            for (int i = toClose.size() - 1; i >= 0; i--) {
                var component = toClose.get(i);
                try {
                    component.close();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "closing local-stack component " + component.name() + " failed", e);
                }
            }
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: this may be the hook
            }
            if (temporaryWorkDir) {
                deleteRecursively(workDir);
            }
        }
    }

    private static void deleteRecursively(Path root) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.delete(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not delete the local stack's work dir " + root, e);
        }
    }
}
