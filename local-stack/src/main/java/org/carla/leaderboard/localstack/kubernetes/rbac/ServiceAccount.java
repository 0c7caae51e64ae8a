package org.carla.leaderboard.localstack.kubernetes.rbac;

import java.util.List;
import java.util.regex.Pattern;

/** A Kubernetes ServiceAccount: what a pod running as it authenticates as, with its token. */
public record ServiceAccount(String namespace, String name) {

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");

    public ServiceAccount {
        if (namespace == null || !DNS_LABEL.matcher(namespace).matches()) {
            throw new IllegalArgumentException("not a namespace name: " + namespace);
        }
        if (name == null || !DNS_SUBDOMAIN.matcher(name).matches()) {
            throw new IllegalArgumentException("not a ServiceAccount name: " + name);
        }
    }

    /** The user and groups the service account token authenticator gives it. */
    public User user() {
        return new User("system:serviceaccount:" + namespace + ":" + name,
                List.of("system:serviceaccounts", "system:serviceaccounts:" + namespace, User.AUTHENTICATED));
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
