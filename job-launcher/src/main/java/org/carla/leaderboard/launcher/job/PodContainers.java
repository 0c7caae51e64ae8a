package org.carla.leaderboard.launcher.job;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;

/**
 * The containers of a pod that run for its life: its regular containers and its sidecars (init containers with
 * {@code restartPolicy: Always}, which the kubelet starts before the regular ones and keeps running beside them; their
 * statuses are in {@code initContainerStatuses}). A pod's one-off init containers are not among them.
 */
public final class PodContainers {

    private PodContainers() {
    }

    /** The statuses of those containers, sidecars first, as the kubelet reported them; empty before it did. */
    public static List<ContainerStatus> statuses(Pod pod) {
        if (pod == null || pod.getStatus() == null) {
            return List.of();
        }
        var statuses = new ArrayList<ContainerStatus>();
        Set<String> sidecars = sidecars(pod);
        if (pod.getStatus().getInitContainerStatuses() != null) {
            pod.getStatus().getInitContainerStatuses().stream().filter(s -> sidecars.contains(s.getName()))
                    .forEach(statuses::add);
        }
        if (pod.getStatus().getContainerStatuses() != null) {
            statuses.addAll(pod.getStatus().getContainerStatuses());
        }
        return statuses;
    }

    /** The specs of those containers, sidecars first. */
    public static List<Container> specs(Pod pod) {
        return pod == null ? List.of() : specs(pod.getSpec());
    }

    /** The specs of those containers in a pod spec (a Job's template), sidecars first. */
    public static List<Container> specs(PodSpec spec) {
        if (spec == null) {
            return List.of();
        }
        var specs = new ArrayList<Container>();
        if (spec.getInitContainers() != null) {
            spec.getInitContainers().stream().filter(PodContainers::sidecar).forEach(specs::add);
        }
        if (spec.getContainers() != null) {
            specs.addAll(spec.getContainers());
        }
        return specs;
    }

    /** An init container the kubelet restarts after any exit and runs beside the regular containers. */
    public static boolean sidecar(Container container) {
        return "Always".equals(container.getRestartPolicy());
    }

    private static Set<String> sidecars(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getInitContainers() == null) {
            return Set.of();
        }
        return pod.getSpec().getInitContainers().stream().filter(PodContainers::sidecar).map(Container::getName)
                .collect(Collectors.toSet());
    }
}
