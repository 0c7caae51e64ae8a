package org.carla.leaderboard.localstack.kubernetes;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.carla.leaderboard.localstack.ServiceAccount;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * What EKS's pod identity webhook gives a container (IRSA): the credentials of the IAM role its pod's ServiceAccount
 * assumes, in every container except those the pod's {@value #SKIP_CONTAINERS} annotation lists (comma-separated
 * names, as the webhook reads it). Here the credentials come as environment; a ServiceAccount no role trusts gets
 * none, as a pod whose ServiceAccount has no role.
 */
public final class PodIdentity {

    public static final String SKIP_CONTAINERS = "eks.amazonaws.com/skip-containers";
    /** No identity at all: every container without AWS credentials. */
    public static final PodIdentity NONE = new PodIdentity(account -> Optional.empty());

    private final Function<ServiceAccount, Optional<Map<String, String>>> credentials;

    /** @param credentials the environment of the role a ServiceAccount assumes; empty when no role trusts it */
    public PodIdentity(Function<ServiceAccount, Optional<Map<String, String>>> credentials) {
        this.credentials = credentials;
    }

    /** The environment the webhook adds to the container. */
    public Map<String, String> environment(Pod pod, Container container) {
        if (skipped(pod).contains(container.getName())) {
            return Map.of();
        }
        String serviceAccount = pod.getSpec().getServiceAccountName();
        var account = new ServiceAccount(pod.getMetadata().getNamespace(),
                serviceAccount == null || serviceAccount.isBlank() ? "default" : serviceAccount);
        return credentials.apply(account).orElse(Map.of());
    }

    private static Set<String> skipped(Pod pod) {
        var annotations = pod.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(SKIP_CONTAINERS);
        return value == null ? Set.of() : Arrays.stream(value.split(",")).map(String::trim)
                .filter(name -> !name.isEmpty()).collect(Collectors.toSet());
    }
}
