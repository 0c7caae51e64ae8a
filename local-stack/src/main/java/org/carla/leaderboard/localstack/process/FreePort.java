package org.carla.leaderboard.localstack.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A port free on the loopback interface right now, for servers that cannot be told to pick one themselves. */
public final class FreePort {

    /**
     * Every port handed out by this JVM: Linux may give the same port to two binds to port 0 in a row once the first
     * socket is closed, so two servers of one stack, started side by side, could otherwise be told the same port.
     */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private static final int TRIES = 100;

    /**
     * How many free ports a start tries in all, when another process takes the one chosen before the server binds it
     * (the window {@link #onLoopback()} cannot close): the stack's servers and the local run's services alike.
     */
    public static final int TRIES_WHEN_TAKEN = 3;

    private FreePort() {
    }

    /**
     * A port no earlier call of this JVM returned. Another process may take it before the server binds it: callers
     * start again on a new one, {@link #TRIES_WHEN_TAKEN} tries in all.
     */
    public static int onLoopback() {
        for (int i = 0; i < TRIES; i++) {
            int port = anyFree();
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port that this JVM has not handed out already, after "
                + TRIES + " tries");
    }

    private static int anyFree() {
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on the loopback interface", e);
        }
    }
}
