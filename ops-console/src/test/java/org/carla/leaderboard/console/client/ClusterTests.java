package org.carla.leaderboard.console.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.List;

import org.carla.leaderboard.console.config.ConsoleConfig;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;

/** A pod as the page reads it when its pairs run as sidecars: listed with logcopy, their GPUs counted. */
class ClusterTests {

    private final Cluster cluster = new Cluster(null, (ConsoleConfig) Proxy.newProxyInstance(
            ConsoleConfig.class.getClassLoader(), new Class<?>[] { ConsoleConfig.class },
            (proxy, method, args) -> switch (method.getName()) {
                case "gpuResource" -> "nvidia.com/gpu";
                case "namespace" -> "submissions";
                default -> throw new UnsupportedOperationException(method.getName());
            }));

    @Test
    void sidecarsAreContainersOfThePodAndOneOffInitContainersAreNot() {
        Pod pod = new PodBuilder().withNewMetadata().withName("run-abcde").endMetadata().withNewSpec()
                .withInitContainers(plain("private-contents", 0), sidecar("simulator-1", 1), sidecar("agent-1", 0))
                .withContainers(plain("logcopy", 0)).endSpec()
                .withNewStatus().withPhase("Running")
                .withInitContainerStatuses(running("private-contents", 0), running("simulator-1", 2),
                        running("agent-1", 1))
                .withContainerStatuses(running("logcopy", 0)).endStatus().build();

        Cluster.PodView view = cluster.view(pod);

        assertThat(view.containers()).extracting(Cluster.ContainerView::name)
                .containsExactly("simulator-1", "agent-1", "logcopy");
        assertThat(view.containers()).extracting(Cluster.ContainerView::restartCount).containsExactly(2, 1, 0);
        assertThat(view.gpus()).isEqualTo(1);
    }

    private static Container sidecar(String name, int gpus) {
        Container container = plain(name, gpus);
        container.setRestartPolicy("Always");
        return container;
    }

    private static Container plain(String name, int gpus) {
        var container = new ContainerBuilder().withName(name).withImage("image");
        if (gpus > 0) {
            container.withNewResources().addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
                    .endResources();
        }
        return container.build();
    }

    private static ContainerStatus running(String name, int restarts) {
        return new ContainerStatusBuilder().withName(name).withRestartCount(restarts).withNewState().withNewRunning()
                .withStartedAt("2026-12-03T10:00:00Z").endRunning().endState().build();
    }
}
