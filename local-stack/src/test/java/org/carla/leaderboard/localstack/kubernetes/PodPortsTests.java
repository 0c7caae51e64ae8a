package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;

/** Pods share the loopback here: the declared port variables are shifted per pod, alike for all its containers. */
class PodPortsTests {

    @TempDir
    Path work;

    @Test
    void twoPodsDeclaringTheSamePortGetDifferentFreePortsSharedByTheirContainers() throws Exception {
        PodSpec spec = new PodSpecBuilder().withContainers(container("simulator-1", "2000"),
                container("agent-1", "2000"), container("simulator-2", "2100")).build();
        var profile = ImageProfile.forImages(".*");

        var first = new PodLayout(work, "job-a", "job-a-bcdfg", spec, List.of("CARLA_PORT"), false);
        var second = new PodLayout(work, "job-b", "job-b-bcdfg", spec, List.of("CARLA_PORT"), false);
        int simulatorA = port(first.launch(spec.getContainers().get(0), profile, "pod-a", java.util.Map.of()));
        int agentA = port(first.launch(spec.getContainers().get(1), profile, "pod-a", java.util.Map.of()));
        int pair2A = port(first.launch(spec.getContainers().get(2), profile, "pod-a", java.util.Map.of()));
        int simulatorB = port(second.launch(spec.getContainers().get(0), profile, "pod-b", java.util.Map.of()));

        assertThat(agentA).isEqualTo(simulatorA);
        assertThat(pair2A).isEqualTo(simulatorA + 100);
        assertThat(simulatorB).isNotEqualTo(simulatorA);
        try (var socket = new ServerSocket(simulatorA, 0, InetAddress.getLoopbackAddress())) {
            assertThat(socket.getLocalPort()).isEqualTo(simulatorA);
        }
    }

    @Test
    void withoutPortVariablesNothingIsShifted() throws Exception {
        PodSpec spec = new PodSpecBuilder().withContainers(container("simulator-1", "2000")).build();
        var launch = new PodLayout(work, "job-c", "job-c-bcdfg", spec).launch(spec.getContainers().get(0), ImageProfile.forImages(".*"),
                "pod-c", java.util.Map.of());
        assertThat(launch.env()).containsEntry("CARLA_PORT", "2000");
    }

    private static Container container(String name, String port) {
        return new ContainerBuilder().withName(name).withImage("carla").withCommand("/bin/true")
                .addNewEnv().withName("CARLA_PORT").withValue(port).endEnv().build();
    }

    private static int port(PodLayout.Launch launch) {
        return Integer.parseInt(launch.env().get("CARLA_PORT"));
    }
}
