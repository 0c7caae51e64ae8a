package org.carla.leaderboard.localstack;

import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.carla.leaderboard.localstack.aws.DynamoDbLocalServer;
import org.carla.leaderboard.localstack.aws.ElasticMqServer;
import org.carla.leaderboard.localstack.aws.S3ProxyServer;
import org.carla.leaderboard.localstack.aws.StackAccess;
import org.carla.leaderboard.localstack.kubernetes.ImageProfiles;
import org.carla.leaderboard.localstack.kubernetes.KubernetesApiServer;
import org.carla.leaderboard.localstack.kubernetes.LocalJobRunner;
import org.carla.leaderboard.localstack.kubernetes.LocalJobRunnerOptions;
import org.carla.leaderboard.localstack.kubernetes.PodIdentity;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The {@code kubernetes} component: the Kubernetes API server (fabric8, CRUD mode) and the local Job runner for the
 * {@code submissions} namespace. The runner's image profiles come from the stack's {@code local-stack.images.*}
 * settings; every container also gets the stack's S3 and SQS endpoints as environment variables, the way
 * pod-runtime's Quarkus configuration reads them (in a cluster, the region's endpoints), and the containers IRSA
 * would give credentials to ({@link PodIdentity}: not the ones the pod's {@code eks.amazonaws.com/skip-containers}
 * lists) get those of the IAM role their pod's ServiceAccount assumes.
 */
public final class KubernetesComponent implements StackComponent {

    public static final String NAME = "kubernetes";
    static final String IMAGES_PREFIX = "local-stack.images.";
    /** Comma-separated env variables holding ports a pod listens on, shifted per pod (pods share the loopback). */
    static final String POD_PORT_VARIABLES = "local-stack.kubernetes.pod-port-variables";
    /** How many pods requesting a GPU run at once (an integer, or {@code unlimited}, the default). */
    static final String GPU_CAPACITY = "local-stack.kubernetes.gpu-capacity";
    /** The extended resource a GPU pod requests (default {@code nvidia.com/gpu}). */
    static final String GPU_RESOURCE = "local-stack.kubernetes.gpu-resource";
    /**
     * {@code on} (default) or {@code off}: without the Job runner, nothing plays the Job controller and the kubelet, for
     * a test that plays them itself (writing the Jobs' and pods' status as they would).
     */
    static final String JOB_RUNNER = "local-stack.kubernetes.job-runner";
    /** The AWS clients of pod-runtime (init and logcopy), whose endpoints every container gets. */
    private static final List<String> POD_CLIENTS = List.of("s3", "sqs", "dynamodb");

    private KubernetesApiServer server;
    private Path workDir;
    private KubernetesClient client;
    private KubernetesClient runnerClient;
    private LocalJobRunner runner;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<String> after() {
        return Set.of(ElasticMqServer.NAME, S3ProxyServer.NAME, DynamoDbLocalServer.NAME);
    }

    @Override
    public void start(StackContext context) {
        var clients = POD_CLIENTS.stream()
                .filter(client -> context.quarkusConfig().containsKey("quarkus." + client + ".endpoint-override"))
                .toList();
        var awsEnv = new LinkedHashMap<String, String>();
        context.quarkusConfig().forEach((key, value) -> {
            if (clients.stream().anyMatch(client -> key.startsWith("quarkus." + client + "."))) {
                awsEnv.put(LocalStackMain.environmentName(key), value);
            }
        });
        var profiles = ImageProfiles.fromProperties(context.settings(), IMAGES_PREFIX).stream()
                .map(profile -> profile.withOverrideEnv(awsEnv))
                .toList();
        server = KubernetesApiServer.start(context.port());
        workDir = context.workDir();
        client = server.newClient();
        runnerClient = server.newClient();
        var options = LocalJobRunnerOptions.builder(runnerClient, context.workDir().resolve("jobs"))
                .namespace(KubernetesApiServer.SUBMISSIONS_NAMESPACE);
        profiles.forEach(options::profile);
        String portVariables = context.settings().getOrDefault(POD_PORT_VARIABLES, "");
        options.podPortVariables(java.util.Arrays.stream(portVariables.split(",")).map(String::trim)
                .filter(name -> !name.isEmpty()).toList());
        String capacity = context.settings().getOrDefault(GPU_CAPACITY, "unlimited").trim();
        try {
            options.gpuCapacity(capacity.equals("unlimited") ? LocalJobRunnerOptions.UNLIMITED
                    : Integer.parseInt(capacity));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(GPU_CAPACITY + " is a number of pods or unlimited, not " + capacity);
        }
        options.gpuResource(context.settings().getOrDefault(GPU_RESOURCE, LocalJobRunnerOptions.NVIDIA_GPU));
        options.podIdentity(new PodIdentity(account -> {
            if (!context.access().hasRole(account)) {
                return Optional.empty();
            }
            var env = new LinkedHashMap<String, String>();
            clients.forEach(client -> StackAccess.quarkusCredentials(client, context.access().of(account))
                    .forEach((key, value) -> env.put(LocalStackMain.environmentName(key), value)));
            return Optional.of(env);
        }));
        String jobRunner = context.settings().getOrDefault(JOB_RUNNER, "on").trim();
        if (!jobRunner.equals("on") && !jobRunner.equals("off")) {
            throw new IllegalArgumentException(JOB_RUNNER + " is on or off, not " + jobRunner);
        }
        if (jobRunner.equals("on")) {
            runner = LocalJobRunner.start(options.build());
        }
    }

    /** The API server: what it enforces (its manifests), clients as a ServiceAccount, the grants no request used. */
    public KubernetesApiServer api() {
        if (server == null) {
            throw new IllegalStateException("kubernetes is not running");
        }
        return server;
    }

    /**
     * The JVM system properties that make fabric8 authenticate as the ServiceAccount, as in its pod: no kubeconfig,
     * the account's token in a file (written under the work dir, owner-only; never in configuration or logs).
     */
    public Map<String, String> identity(ServiceAccount account) {
        Path token = api().writeToken(account, workDir.resolve("serviceaccounts").resolve(account.namespace())
                .resolve(account.name()).resolve("token"));
        return Map.of("kubernetes.auth.tryKubeConfig", "false",
                "kubernetes.auth.serviceAccount.token", token.toString());
    }

    /** An administrator's fabric8 client on the API server, in the {@code submissions} namespace; the stack closes it. */
    public KubernetesClient client() {
        if (client == null) {
            throw new IllegalStateException("kubernetes is not running");
        }
        return client;
    }

    /** The local Job runner: GPU capacity, killing a container as the OOM killer would, its pods' processes. */
    public LocalJobRunner runner() {
        if (runner == null) {
            throw new IllegalStateException("kubernetes runs no Job runner (not started, or " + JOB_RUNNER + "=off)");
        }
        return runner;
    }

    @Override
    public Map<String, URI> endpoints() {
        return server == null ? Map.of() : Map.of(NAME, URI.create(server.url()));
    }

    @Override
    public Map<String, String> quarkusConfig() {
        return server == null ? Map.of() : server.quarkusConfig();
    }

    /** The processes of the Jobs' pods the runner is running now. */
    @Override
    public List<ProcessHandle> processes() {
        return runner == null ? List.of() : runner.processes();
    }

    @Override
    public void close() {
        if (runner != null) {
            runner.close();
        }
        if (runnerClient != null) {
            runnerClient.close();
        }
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }
}
