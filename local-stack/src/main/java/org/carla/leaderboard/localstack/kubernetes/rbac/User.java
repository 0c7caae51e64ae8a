package org.carla.leaderboard.localstack.kubernetes.rbac;

import java.util.List;

/** Who a request comes from, as the API server's authenticators tell it: a user name and its groups. */
public record User(String name, List<String> groups) {

    public static final String AUTHENTICATED = "system:authenticated";
    /** The group the bootstrap policy binds to {@code cluster-admin}: everything, everywhere. */
    public static final String MASTERS = "system:masters";

    /** A request without credentials (anonymous authentication, as EKS runs it). */
    public static final User ANONYMOUS = new User("system:anonymous", List.of("system:unauthenticated"));

    public User {
        groups = List.copyOf(groups);
    }
}
