package org.carla.leaderboard.localstack.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Collections;
import java.util.Optional;
import java.util.Properties;

import org.carla.leaderboard.localstack.kubernetes.rbac.ServiceAccount;

/**
 * The ServiceAccount the service under test runs as in the cluster, read from the keys its manifests are generated
 * from ({@code quarkus.kubernetes.namespace} and {@code quarkus.kubernetes.service-account} of its
 * {@code application.properties} on the class path), so a test talks to the local API server as the deployed service
 * would, never as someone else.
 */
public final class ApplicationIdentity {

    static final String NAMESPACE = "quarkus.kubernetes.namespace";
    static final String SERVICE_ACCOUNT = "quarkus.kubernetes.service-account";

    private ApplicationIdentity() {
    }

    /** The first {@code application.properties} of the class path that names a ServiceAccount; empty if none does. */
    public static Optional<ServiceAccount> serviceAccount() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try {
            for (URL url : Collections.list(loader.getResources("application.properties"))) {
                var properties = new Properties();
                try (InputStream in = url.openStream()) {
                    properties.load(in);
                }
                String name = properties.getProperty(SERVICE_ACCOUNT);
                if (name != null) {
                    String namespace = properties.getProperty(NAMESPACE);
                    if (namespace == null) {
                        throw new IllegalStateException(url + " names " + SERVICE_ACCOUNT + " but no " + NAMESPACE);
                    }
                    return Optional.of(new ServiceAccount(namespace.trim(), name.trim()));
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the application.properties of the class path", e);
        }
    }
}
