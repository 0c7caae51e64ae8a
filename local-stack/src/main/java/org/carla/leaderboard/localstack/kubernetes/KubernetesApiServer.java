package org.carla.leaderboard.localstack.kubernetes;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

/**
 * The Kubernetes API for the local stack: fabric8's mock server in CRUD mode (objects are stored, watches stream
 * their changes, {@code /status} is a subresource) over plain HTTP on 127.0.0.1, with the namespaces created.
 */
public final class KubernetesApiServer implements AutoCloseable {

    /** The namespace the submissions' Jobs live in (shared contract). */
    public static final String SUBMISSIONS_NAMESPACE = "submissions";

    /** The mock server logs every request at INFO; held here so the level sticks (JUL keeps loggers weakly). */
    private static final java.util.logging.Logger REQUEST_LOG = java.util.logging.Logger
            .getLogger("io.fabric8.mockwebserver.MockWebServer");

    private final KubernetesMockServer server;
    private final String url;
    private final String defaultNamespace;

    private KubernetesApiServer(KubernetesMockServer server, String defaultNamespace) {
        this.server = server;
        this.url = "http://127.0.0.1:" + server.getPort() + "/";
        this.defaultNamespace = defaultNamespace;
    }

    /**
     * The CRUD dispatcher treats {@code status} as a subresource for custom resources only; here the built-in kinds
     * that have one in a real cluster get it too, so a plain update leaves the status alone and only {@code /status}
     * writes it (a test that edits a Job's status the wrong way fails here as it would against a cluster).
     */
    private static final class StatusAwareDispatcher extends KubernetesCrudDispatcher {

        private static final java.util.regex.Pattern BUILT_IN_WITH_STATUS = java.util.regex.Pattern.compile(
                "^/(?:api/v1|apis/(?:batch|apps)/v1)/(?:namespaces/[^/]+/)?"
                        + "(?:pods|jobs|cronjobs|deployments|statefulsets|replicasets|daemonsets)(?:[/?].*)?$");

        StatusAwareDispatcher() {
            super(List.of());
        }

        @Override
        public boolean isStatusSubresourceEnabledForResource(String path) {
            return BUILT_IN_WITH_STATUS.matcher(path).matches() || super.isStatusSubresourceEnabledForResource(path);
        }
    }

    /** Starts on {@code port} (0 = a free port) with the {@value #SUBMISSIONS_NAMESPACE} namespace. */
    public static KubernetesApiServer start(int port) {
        return start(port, List.of(SUBMISSIONS_NAMESPACE));
    }

    /** Starts on {@code port} (0 = a free port) with the given namespaces; the first is the clients' default. */
    public static KubernetesApiServer start(int port, List<String> namespaces) {
        if (namespaces.isEmpty()) {
            throw new IllegalArgumentException("at least one namespace");
        }
        REQUEST_LOG.setLevel(java.util.logging.Level.WARNING);
        var server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new StatusAwareDispatcher(), false);
        try {
            server.init(InetAddress.getLoopbackAddress(), port);
        } catch (RuntimeException e) {
            server.destroy();
            throw e;
        }
        var api = new KubernetesApiServer(server, namespaces.get(0));
        try (KubernetesClient client = api.newClient()) {
            for (String namespace : namespaces) {
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

    /** The configuration that points a Quarkus service's Kubernetes client here, in the submissions namespace. */
    public java.util.Map<String, String> quarkusConfig() {
        return java.util.Map.of("quarkus.kubernetes-client.api-server-url", url,
                "quarkus.kubernetes-client.namespace", defaultNamespace,
                "quarkus.kubernetes-client.trust-certs", "true");
    }

    public int port() {
        return server.getPort();
    }

    /** A new client on this server, defaulting to the first namespace; the caller closes it. */
    public KubernetesClient newClient() {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(url)
                .withNamespace(defaultNamespace)
                .withTrustCerts(true)
                .withHttp2Disable(true)
                .build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    @Override
    public void close() {
        server.destroy();
    }
}
