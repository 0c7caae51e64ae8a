package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP relay in front of a server, which a test can cut (listener closed, open connections reset: clients
 * get "connection refused") and restore on the same port: an outage of the server as its clients see it.
 */
final class TcpRelay implements AutoCloseable {

    private final InetSocketAddress target;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;

    TcpRelay(URI target) throws IOException {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        this.listener = listen(0);
        this.port = listener.getLocalPort();
        accept(listener);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    synchronized void cut() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
        sockets.clear();
    }

    synchronized void restore() throws IOException {
        listener = listen(port);
        accept(listener);
    }

    private static ServerSocket listen(int port) throws IOException {
        var socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return socket;
    }

    private void accept(ServerSocket server) {
        Thread thread = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    Socket upstream = new Socket(target.getAddress(), target.getPort());
                    sockets.add(client);
                    sockets.add(upstream);
                    pump(client, upstream);
                    pump(upstream, client);
                } catch (IOException e) {
                    // closed by cut() or close()
                }
            }
        }, "tcp-relay-accept");
        thread.setDaemon(true);
        thread.start();
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // either side closed
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException e) {
                    // already closed
                }
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-relay-pump");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        cut();
    }
}
