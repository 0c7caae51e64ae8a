package org.carla.leaderboard.localstack.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The ports a test tells a process it starts later (CARLA's): out of the kernel's reach in the meantime, and never the
 * same twice.
 */
class FreePortTests {

    @Test
    void aPortForALaterBindIsFreeBelowTheKernelsEphemeralRangeAndNeverHandedOutTwice() throws Exception {
        String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
        int ephemeralFirst = Integer.parseInt(range.split("\\s+")[0]);
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = FreePort.forALaterBind();
            assertThat(port).isLessThan(ephemeralFirst).isBetween(1024, 65535);
            try (var server = new ServerSocket()) {
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            }
            assertThat(ports.add(port)).as("port %d handed out twice", port).isTrue();
        }
    }

    @Test
    void aPortAServerListensOnIsNotBindable() throws Exception {
        try (var server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(FreePort.bindable(server.getLocalPort())).isFalse();
        }
        int port = FreePort.forALaterBind();
        assertThat(FreePort.bindable(port)).isTrue();
    }
}
