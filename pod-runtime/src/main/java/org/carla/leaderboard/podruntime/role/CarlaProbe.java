package org.carla.leaderboard.podruntime.role;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/** Whether the CARLA server accepts TCP connections yet. */
@FunctionalInterface
public interface CarlaProbe {

    boolean accepts();

    static CarlaProbe tcp(String host, int port) {
        return () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), 200);
                return true;
            } catch (IOException e) {
                return false;
            }
        };
    }
}
