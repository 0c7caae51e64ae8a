package org.carla.leaderboard.localstack.kubernetes;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * How the local Job runner runs: the API it watches and writes to, the one namespace it serves, the folder its Jobs'
 * volumes and logs go to, the image profiles, the container restart back-off (kubelet: 10 s doubling to 5 min;
 * tests use a few milliseconds), the GPU capacity: how many pods requesting {@code gpuResource} run at once
 * ({@link #UNLIMITED} by default), and the pods' AWS identity ({@link PodIdentity#NONE} by default).
 */
public record LocalJobRunnerOptions(KubernetesClient client, String namespace, Path workRoot, List<ImageProfile> profiles,
        Duration backoffBase, Duration backoffMax, List<String> podPortVariables, int gpuCapacity,
        String gpuResource, PodIdentity podIdentity) {

    /** No GPU capacity limit: every pod is placed at once. */
    public static final int UNLIMITED = Integer.MAX_VALUE;
    public static final String NVIDIA_GPU = "nvidia.com/gpu";

    public LocalJobRunnerOptions {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(workRoot, "workRoot");
        profiles = List.copyOf(profiles);
        podPortVariables = List.copyOf(podPortVariables);
        if (backoffBase.isNegative() || backoffMax.compareTo(backoffBase) < 0) {
            throw new IllegalArgumentException("back-off: 0 <= base <= max");
        }
        if (gpuCapacity < 0) {
            throw new IllegalArgumentException("GPU capacity must not be negative: " + gpuCapacity);
        }
        Objects.requireNonNull(gpuResource, "gpuResource");
        Objects.requireNonNull(podIdentity, "podIdentity");
    }

    public static Builder builder(KubernetesClient client, Path workRoot) {
        return new Builder(client, workRoot);
    }

    public static final class Builder {
        private final KubernetesClient client;
        private final Path workRoot;
        private String namespace = KubernetesApiServer.SUBMISSIONS_NAMESPACE;
        private final List<ImageProfile> profiles = new ArrayList<>();
        private Duration backoffBase = Duration.ofSeconds(10);
        private Duration backoffMax = Duration.ofMinutes(5);
        private final List<String> podPortVariables = new ArrayList<>();
        private int gpuCapacity = UNLIMITED;
        private String gpuResource = NVIDIA_GPU;
        private PodIdentity podIdentity = PodIdentity.NONE;

        private Builder(KubernetesClient client, Path workRoot) {
            this.client = client;
            this.workRoot = workRoot;
        }

        public Builder namespace(String value) {
            namespace = value;
            return this;
        }

        /** Profiles are tried in the order added; the first whose pattern matches the image wins. */
        public Builder profile(ImageProfile profile) {
            profiles.add(profile);
            return this;
        }

        public Builder backoff(Duration base, Duration max) {
            backoffBase = base;
            backoffMax = max;
            return this;
        }

        /**
         * Env variables holding a port a pod listens on (e.g. {@code CARLA_PORT}). In a cluster every pod has its own
         * network namespace; here all share the loopback interface, so the runner shifts these ports, for every
         * container of a pod alike, by an offset of that pod that lands on a free port.
         */
        public Builder podPortVariables(List<String> names) {
            podPortVariables.addAll(names);
            return this;
        }

        /**
         * At most this many pods that request the GPU resource run at once (GPU nodes of the instance type, a pod
         * each); the others stay Pending, unschedulable, until one ends. 0 is a node group scaled to zero.
         */
        public Builder gpuCapacity(int pods) {
            gpuCapacity = pods;
            return this;
        }

        /** The extended resource a GPU pod requests (default {@code nvidia.com/gpu}). */
        public Builder gpuResource(String resource) {
            gpuResource = resource;
            return this;
        }

        /** The AWS credentials each container gets for its pod's ServiceAccount, as EKS's IRSA webhook gives them. */
        public Builder podIdentity(PodIdentity identity) {
            podIdentity = identity;
            return this;
        }

        public LocalJobRunnerOptions build() {
            return new LocalJobRunnerOptions(client, namespace, workRoot, profiles, backoffBase, backoffMax,
                    podPortVariables, gpuCapacity, gpuResource, podIdentity);
        }
    }
}
