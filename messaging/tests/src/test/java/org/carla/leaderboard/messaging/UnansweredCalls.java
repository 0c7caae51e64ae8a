package org.carla.leaderboard.messaging;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * ElasticMQ behind a proxy that passes every SQS call on except one operation, whose requests it takes and never
 * answers: an answer lost on the way (a black-holed connection; ElasticMQ once never answered a visibility change),
 * as the consumer's SDK client sees it. The operation is told by the JSON protocol's {@code X-Amz-Target}.
 */
final class UnansweredCalls implements AutoCloseable {

    /** Host is passed on as the client signed it (SigV4), which the pom allows the JDK's client to send. */
    private static final Set<String> NOT_FORWARDED = Set.of("connection", "content-length", "expect", "upgrade",
            "transfer-encoding");

    private final URI target;
    private final String unanswered;
    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        var thread = new Thread(r, "unanswered-calls");
        thread.setDaemon(true);
        return thread;
    });
    private final HttpClient client = HttpClient.newHttpClient();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final AtomicInteger held = new AtomicInteger();

    /** Every {@code operation} (e.g. {@code ChangeMessageVisibility}) sent through it to SQS at {@code target} is held. */
    UnansweredCalls(URI target, String operation) throws IOException {
        this.target = target;
        this.unanswered = "AmazonSQS." + operation;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** How many requests were taken and never answered. */
    int held() {
        return held.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        byte[] body = exchange.getRequestBody().readAllBytes();
        if (unanswered.equals(exchange.getRequestHeaders().getFirst("X-Amz-Target"))) {
            held.incrementAndGet();
            try {
                closed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
            return;
        }
        var request = HttpRequest.newBuilder(target.resolve(exchange.getRequestURI().toString()))
                .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
        exchange.getRequestHeaders().forEach((name, values) -> {
            if (!NOT_FORWARDED.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                values.forEach(value -> request.header(name, value));
            }
        });
        try {
            HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            response.headers().map().forEach((name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(java.util.Locale.ROOT)) && !name.startsWith(":")) {
                    exchange.getResponseHeaders().put(name, values);
                }
            });
            exchange.sendResponseHeaders(response.statusCode(), response.body().length == 0 ? -1
                    : response.body().length);
            exchange.getResponseBody().write(response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close();
        }
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        threads.shutdownNow();
    }
}
