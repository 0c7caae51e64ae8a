package org.carla.leaderboard.localstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * A Kubernetes ServiceAccount, {@code namespace} and {@code name}: who a process is in the cluster, and so which IAM
 * role it assumes (IRSA: the role whose trust names {@code system:serviceaccount:<namespace>:<name>}).
 */
public record ServiceAccount(String namespace, String name) {

    static final String NAMESPACE_KEY = "quarkus.kubernetes.namespace";
    static final String NAME_KEY = "quarkus.kubernetes.service-account";

    public ServiceAccount {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    /** A service's own, from the keys its manifest is generated from ({@value #NAMESPACE_KEY}, {@value #NAME_KEY}). */
    public static Optional<ServiceAccount> of(Properties applicationProperties) {
        String namespace = applicationProperties.getProperty(NAMESPACE_KEY);
        String name = applicationProperties.getProperty(NAME_KEY);
        return namespace == null || name == null ? Optional.empty()
                : Optional.of(new ServiceAccount(namespace.trim(), name.trim()));
    }

    /** The service's whose {@code application.properties} the class loader sees (a service's tests). */
    public static Optional<ServiceAccount> ofClassPath(ClassLoader loader) {
        try {
            for (URL url : Collections.list(loader.getResources("application.properties"))) {
                var properties = new Properties();
                try (InputStream in = url.openStream()) {
                    properties.load(in);
                }
                var account = of(properties);
                if (account.isPresent()) {
                    return account;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read application.properties", e);
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return namespace + ":" + name;
    }
}
