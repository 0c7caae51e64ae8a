package org.carla.leaderboard.localstack.kubernetes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.carla.leaderboard.localstack.kubernetes.rbac.GrantUsage;
import org.carla.leaderboard.localstack.kubernetes.rbac.RbacAuthorizer;
import org.carla.leaderboard.localstack.kubernetes.rbac.RbacPolicy;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.carla.leaderboard.localstack.kubernetes.rbac.User;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

/**
 * The Kubernetes API for the local stack: fabric8's mock server in CRUD mode (objects are stored, watches stream
 * their changes, {@code /status} is a subresource) over plain HTTP on 127.0.0.1, enforcing what operators deploy
 * ({@link ClusterManifests}): it starts with the manifests' namespaces, issues a bearer token to each of their
 * ServiceAccounts, and authorizes every request against their RBAC ({@link ApiServerDispatcher}). Its own clients
 * ({@link #newClient()}) are the cluster's administrator (group {@code system:masters}), for the Job runner and for
 * tests acting as the operator; a service gets its ServiceAccount's token ({@link #writeToken}).
 */
public final class KubernetesApiServer implements AutoCloseable {

    /** The namespace the submissions' Jobs live in (shared contract; deploy/submissions/namespace.yml makes it). */
    public static final String SUBMISSIONS_NAMESPACE = "submissions";
    /** The identity no service has: the operator's, the controllers' and the kubelet's here. */
    public static final User ADMINISTRATOR = new User("local-stack-admin", List.of(User.MASTERS, User.AUTHENTICATED));

    /** The mock server logs every request at INFO; held here so the level sticks (JUL keeps loggers weakly). */
    private static final java.util.logging.Logger REQUEST_LOG = java.util.logging.Logger
            .getLogger("io.fabric8.mockwebserver.MockWebServer");
    /**
     * What tokens are signed with: one per JVM, so an API server started again (a control plane restored) accepts the
     * tokens clients already hold, as a cluster keeps its service-account signing key.
     */
    private static final byte[] SIGNING_KEY = signingKey();

    private final ApiServerDispatcher dispatcher;
    private final KubernetesMockServer server;
    private final String url;
    private final ClusterManifests manifests;
    private final RbacPolicy policy;
    private final GrantUsage usage = new GrantUsage();
    private final String administratorToken = token(ADMINISTRATOR);
    private final Map<ServiceAccount, String> tokens = new LinkedHashMap<>();

    private KubernetesApiServer(int port) {
        this.manifests = ClusterManifests.load();
        this.policy = manifests.policy();
        if (!manifests.namespaces().contains(SUBMISSIONS_NAMESPACE)) {
            throw new IllegalStateException("deploy/ creates no namespace " + SUBMISSIONS_NAMESPACE);
        }
        this.dispatcher = new ApiServerDispatcher(new RbacAuthorizer(policy), usage);
        dispatcher.issue(administratorToken, ADMINISTRATOR);
        for (ServiceAccount account : manifests.serviceAccounts()) {
            String token = token(account.user());
            tokens.put(account, token);
            dispatcher.issue(token, account.user());
        }
        REQUEST_LOG.setLevel(java.util.logging.Level.WARNING);
        this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        try {
            server.init(InetAddress.getLoopbackAddress(), port);
        } catch (RuntimeException e) {
            server.destroy();
            throw e;
        }
        this.url = "http://127.0.0.1:" + server.getPort() + "/";
    }

    /** Starts on {@code port} (0 = a free port) with the namespaces of the manifests, as a cluster has them. */
    public static KubernetesApiServer start(int port) {
        var api = new KubernetesApiServer(port);
        try (KubernetesClient client = api.newClient()) {
            for (String namespace : api.manifests.namespaces()) {
                client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata()
                        .build()).create();
            }
        } catch (RuntimeException e) {
            api.close();
            throw e;
        }
        return api;
    }

    /** The API server URL, for {@code quarkus.kubernetes-client.api-server-url}. */
    public String url() {
        return url;
    }

    /**
     * The configuration that points a Quarkus service's Kubernetes client here, in the submissions namespace; its
     * identity is its ServiceAccount's token file ({@link #writeToken}), as in a pod.
     */
    public Map<String, String> quarkusConfig() {
        return Map.of("quarkus.kubernetes-client.api-server-url", url,
                "quarkus.kubernetes-client.namespace", SUBMISSIONS_NAMESPACE,
                "quarkus.kubernetes-client.trust-certs", "true");
    }

    public int port() {
        return server.getPort();
    }

    /** What operators applied: the namespaces, ServiceAccounts and RBAC this server enforces. */
    public ClusterManifests manifests() {
        return manifests;
    }

    /** A new client on this server as the administrator, defaulting to the submissions namespace; the caller closes it. */
    public KubernetesClient newClient() {
        return new KubernetesClientBuilder().withConfig(config(administratorToken).build()).build();
    }

    /** A new client on this server as the ServiceAccount; the caller closes it. */
    public KubernetesClient newClient(ServiceAccount account) {
        return new KubernetesClientBuilder().withConfig(clientConfig(account).build()).build();
    }

    /** A client configuration as the ServiceAccount, for a test that sets its own timeouts. */
    public ConfigBuilder clientConfig(ServiceAccount account) {
        return config(tokenOf(account));
    }

    /**
     * Writes the ServiceAccount's token to {@code file} (owner-only), as the kubelet mounts it into a pod; fabric8
     * reads it from there (system property {@code kubernetes.auth.serviceAccount.token}, environment
     * {@code KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN}), so the token is never in configuration or on a command line.
     */
    public Path writeToken(ServiceAccount account, Path file) {
        try {
            Files.createDirectories(file.getParent());
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, tokenOf(account), StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the token of " + account + " to " + file, e);
        }
    }

    /**
     * The ServiceAccount's own permissions (the rules bound to it by name) that no request allowed by this server
     * used, each as "verb group/resource [name] (binding, role, rule)".
     */
    public List<String> unusedGrants(ServiceAccount account) {
        return usage.unused(policy, account);
    }

    /**
     * The next {@code times} requests of {@code verb} (as RBAC names it: create, patch, list, ...) on
     * {@code apiGroup/resource} (the core group is empty) are answered 503 ServiceUnavailable, whoever sends them, as
     * an API server that cannot serve for a while answers them; other requests are served meanwhile.
     */
    public void unavailable(String verb, String apiGroup, String resource, int times) {
        if (times < 1) {
            throw new IllegalArgumentException("times is at least 1, not " + times);
        }
        dispatcher.unavailable(verb, apiGroup, resource, times);
    }

    private String tokenOf(ServiceAccount account) {
        String token = tokens.get(account);
        if (token == null) {
            throw new IllegalArgumentException("deploy/ creates no ServiceAccount " + account + " (ServiceAccounts: "
                    + tokens.keySet() + ")");
        }
        return token;
    }

    private ConfigBuilder config(String token) {
        return new ConfigBuilder(Config.empty())
                .withMasterUrl(url)
                .withNamespace(SUBMISSIONS_NAMESPACE)
                .withOauthToken(token)
                .withTrustCerts(true)
                .withHttp2Disable(true);
    }

    private static byte[] signingKey() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return key;
    }

    private static String token(User user) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(SIGNING_KEY, "HmacSHA256"));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(user.name()
                    .getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is a JDK algorithm", e);
        }
    }

    @Override
    public void close() {
        server.destroy();
    }
}
