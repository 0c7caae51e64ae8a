package org.carla.leaderboard.localstack.kubernetes;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

import org.carla.leaderboard.localstack.kubernetes.rbac.RbacPolicy;
import org.carla.leaderboard.localstack.ServiceAccount;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * What operators apply to the cluster, as the local API server takes it: the manifests of {@code deploy/}
 * ({@code kubernetes/}, {@code services/}, {@code submissions/}, {@code cluster/}: every {@code *.yml}, copied into
 * this module's classes under {@value #DEPLOY} when it is built) on top of Kubernetes' own bootstrap policy. The
 * namespaces the server starts with, the ServiceAccounts it issues tokens for, and the RBAC policy it authorizes every
 * request against all come from here; nothing about them is written in the stack's code.
 */
public final class ClusterManifests {

    /** Where the build copies deploy/'s manifests (local-stack/pom.xml). */
    static final String DEPLOY = "deploy";
    private static final String BOOTSTRAP = "META-INF/local-stack/kubernetes/bootstrap-rbac.yml";
    /** The namespaces every cluster has before anything is applied. */
    private static final List<String> BUILT_IN_NAMESPACES = List.of("default", "kube-system", "kube-public",
            "kube-node-lease");

    private final List<HasMetadata> deployed;
    private final List<HasMetadata> bootstrap;

    private ClusterManifests(List<HasMetadata> deployed, List<HasMetadata> bootstrap) {
        this.deployed = List.copyOf(deployed);
        this.bootstrap = List.copyOf(bootstrap);
    }

    /** The manifests on this class path; fails when the build did not copy deploy/ (so nothing would be enforced). */
    public static synchronized ClusterManifests load() {
        ClassLoader loader = ClusterManifests.class.getClassLoader();
        List<HasMetadata> deployed = new ArrayList<>();
        forEachYaml(loader, DEPLOY, in -> deployed.addAll(objects(in)));
        if (deployed.isEmpty()) {
            throw new IllegalStateException(DEPLOY + " holds no manifest: rebuild local-stack (its build copies deploy/)");
        }
        try (InputStream in = Objects.requireNonNull(loader.getResourceAsStream(BOOTSTRAP), BOOTSTRAP)) {
            return new ClusterManifests(deployed, objects(in));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kubernetes' built-in namespaces, then every Namespace of the manifests. */
    public List<String> namespaces() {
        Set<String> names = new LinkedHashSet<>(BUILT_IN_NAMESPACES);
        deployed.stream().filter(Namespace.class::isInstance).map(o -> o.getMetadata().getName()).forEach(names::add);
        return List.copyOf(names);
    }

    /** Every ServiceAccount the manifests create. */
    public Set<ServiceAccount> serviceAccounts() {
        Set<ServiceAccount> accounts = new LinkedHashSet<>();
        deployed.stream().filter(io.fabric8.kubernetes.api.model.ServiceAccount.class::isInstance)
                .map(o -> new ServiceAccount(o.getMetadata().getNamespace(), o.getMetadata().getName()))
                .forEach(accounts::add);
        return accounts;
    }

    /** The ServiceAccount the Deployment of that name runs as ({@code default} when it names none). */
    public ServiceAccount serviceAccountOf(String deployment) {
        return deployed.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
                .filter(d -> deployment.equals(d.getMetadata().getName())).findFirst()
                .map(d -> new ServiceAccount(d.getMetadata().getNamespace(), Objects.requireNonNullElse(
                        d.getSpec().getTemplate().getSpec().getServiceAccountName(), "default")))
                .orElseThrow(() -> new IllegalArgumentException("deploy/ has no Deployment " + deployment));
    }

    /** The bootstrap policy and every Role, ClusterRole and binding of the manifests. */
    public RbacPolicy policy() {
        List<HasMetadata> all = new ArrayList<>(bootstrap);
        all.addAll(deployed);
        return RbacPolicy.of(all);
    }

    private interface YamlReader {
        void read(InputStream in) throws IOException;
    }

    private static void forEachYaml(ClassLoader loader, String folder, YamlReader reader) {
        URL url = loader.getResource(folder);
        if (url == null) {
            return;
        }
        try {
            URI uri = url.toURI();
            if ("jar".equals(uri.getScheme())) {
                FileSystem jar;
                boolean opened;
                try {
                    jar = FileSystems.newFileSystem(uri, Map.of());
                    opened = true;
                } catch (FileSystemAlreadyExistsException e) {
                    jar = FileSystems.getFileSystem(uri);
                    opened = false;
                }
                try {
                    walk(jar.provider().getPath(uri), reader);
                } finally {
                    if (opened) {
                        jar.close();
                    }
                }
            } else {
                walk(Path.of(uri), reader);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + url, e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void walk(Path folder, YamlReader reader) throws IOException {
        List<Path> files;
        try (Stream<Path> paths = Files.walk(folder)) {
            files = paths.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().endsWith(".yml"))
                    .sorted().toList();
        }
        for (Path file : files) {
            try (InputStream in = Files.newInputStream(file)) {
                reader.read(in);
            }
        }
    }

    private static List<HasMetadata> objects(InputStream in) {
        Object parsed = Serialization.unmarshal(in);
        if (parsed instanceof List<?> list) {
            return list.stream().filter(Objects::nonNull).map(HasMetadata.class::cast).toList();
        }
        if (parsed instanceof KubernetesList list) {
            return list.getItems();
        }
        return parsed == null ? List.of() : List.of((HasMetadata) parsed);
    }
}
