package org.carla.leaderboard.localstack.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

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

    /** Where {@link #forALaterBind()} draws: below the Job runner's pod blocks (16000 and up), below the kernel's range. */
    static final int LATER_BIND_FIRST = 10_000;
    static final int LATER_BIND_LAST = 15_999;

    /**
     * A port for a process started later to bind (CARLA's RPC port, which CARLA is told and cannot choose): free now,
     * below the kernel's ephemeral range (32768 and up on Linux), so that no outgoing connection and no server started on
     * port 0 takes it meanwhile, and never one this JVM handed out before. {@link #onLoopback()}'s ports come from that
     * range: a server told one may find it taken, and its start tries another.
     */
    public static int forALaterBind() {
        int span = LATER_BIND_LAST - LATER_BIND_FIRST + 1;
        for (int i = 0; i < TRIES; i++) {
            int port = LATER_BIND_FIRST + ThreadLocalRandom.current().nextInt(span);
            if (bindable(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port between " + LATER_BIND_FIRST + " and "
                + LATER_BIND_LAST + " that this JVM has not handed out already, after " + TRIES + " tries");
    }

    /** Whether a server could bind {@code port} on the loopback interface now, without {@code SO_REUSEADDR}. */
    public static boolean bindable(int port) {
        try (var socket = new ServerSocket()) {
            socket.setReuseAddress(false); // a port whose last connections linger (TIME_WAIT) is not free for every server
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
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
