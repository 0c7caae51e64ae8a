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
        assertThat(simulatorB).isNotEqualTo(simulatorA).isNotEqualTo(pair2A);
        try (var socket = new ServerSocket(simulatorA, 0, InetAddress.getLoopbackAddress())) {
            assertThat(socket.getLocalPort()).isEqualTo(simulatorA);
        }
        first.releasePorts();
        second.releasePorts();
    }

    /**
     * A pod's ports lie below the kernel's ephemeral range, in a block no other live pod of this JVM has: a port picked
     * by bind(0) at the pod's creation was free then, yet any outgoing connection could take it before CARLA bound it,
     * and a 2-pair pod's second pair (+100) could land on another pod's first.
     */
    @Test
    void eachLivePodHasABlockOfItsOwnBelowTheEphemeralRange() throws Exception {
        PodSpec twoPairs = new PodSpecBuilder().withContainers(container("simulator-1", "2000"),
                container("simulator-2", "2100")).build();
        var profile = ImageProfile.forImages(".*");
        var layouts = new java.util.ArrayList<PodLayout>();
        var firstPorts = new java.util.HashSet<Integer>();
        for (int i = 0; i < 3; i++) {
            var layout = new PodLayout(work, "job-" + i, "job-" + i + "-bcdfg", twoPairs, List.of("CARLA_PORT"), false);
            layouts.add(layout);
            int first = port(layout.launch(twoPairs.getContainers().get(0), profile, "pod-" + i, java.util.Map.of()));
            int second = port(layout.launch(twoPairs.getContainers().get(1), profile, "pod-" + i, java.util.Map.of()));
            assertThat(second).isEqualTo(first + 100);
            assertThat(first).isBetween(PortBlocks.FIRST, PortBlocks.FIRST + PortBlocks.COUNT * PortBlocks.SIZE - 1)
                    .isLessThan(32_768);
            assertThat((first - PortBlocks.FIRST) % PortBlocks.SIZE).isZero();
            firstPorts.add(first);
        }
        assertThat(firstPorts).as("a block each").hasSize(3);
        layouts.forEach(PodLayout::releasePorts);
    }

    @Test
    void aBlockGivenBackIsTakenAgainAndAPodWiderThanABlockGetsNone() {
        var taken = new java.util.ArrayList<Integer>();
        for (int start; (start = PortBlocks.take(List.of(2000, 2100))) >= 0;) {
            taken.add(start);
        }
        try {
            assertThat(taken).isNotEmpty().doesNotHaveDuplicates();
            PortBlocks.release(taken.get(0));
            assertThat(PortBlocks.take(List.of(2000, 2100))).as("the only free block").isEqualTo(taken.get(0));
        } finally {
            taken.forEach(PortBlocks::release);
        }
        assertThat(PortBlocks.take(List.of(2000, 2000 + PortBlocks.SIZE))).isEqualTo(-1);
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
