package org.carla.leaderboard.localstack.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** A port free on the loopback interface right now, for servers that cannot be told to pick one themselves. */
public final class FreePort {

    private FreePort() {
    }

    /** Another process may take it before the server binds it: {@link ServerProcess} callers retry on that. */
    public static int onLoopback() {
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on the loopback interface", e);
        }
    }
}
