package org.carla.leaderboard.localstack.gate;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.carla.leaderboard.localstack.iam.AccessRequest;
import org.carla.leaderboard.localstack.iam.Decision;
import org.carla.leaderboard.localstack.iam.Identity;

/**
 * The IAM gate in front of one local server, in the server's own process: listens on the public port, checks each
 * request's SigV4 signature against its principal's secret, asks IAM ({@link org.carla.leaderboard.localstack.iam
 * .Authorizer}) for every action and resource the request needs, records each decision, and either answers the
 * service's own refusal or relays the request, unchanged, to the server on its loopback port and its answer back. A
 * server that is not listening yet makes the gate reset the connection, as a closed port would. Bodies are relayed as
 * they come, except those the decision needs (small: SQS, DynamoDB, CloudWatch, S3's DeleteObjects).
 */
public final class AccessGate implements AutoCloseable {

    private static final long MAX_READ_BODY = 64L * 1024 * 1024;
    private static final List<String> HOP_BY_HOP = List.of("Connection", "Keep-Alive", "Proxy-Connection", "Expect");
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

    private final GateConfig config;
    private final GateConfig.Gate gate;
    private final ServiceProtocol protocol;
    private final DecisionLog decisions;
    private final ServerSocket listener;
    private final ExecutorService connections = Executors.newCachedThreadPool(runnable -> {
        var thread = new Thread(runnable, "iam-gate-connection");
        thread.setDaemon(true);
        return thread;
    });

    private AccessGate(GateConfig config, GateConfig.Gate gate, DecisionLog decisions) throws IOException {
        this.config = config;
        this.gate = gate;
        this.protocol = GateConfig.protocol(gate.service());
        this.decisions = decisions;
        this.listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), gate.port()), 128);
    }

    /** Starts every gate the file configures; throws when one cannot (a policy it cannot evaluate, a port taken). */
    public static List<AccessGate> start(Path configFile) throws IOException {
        GateConfig config = GateConfig.read(configFile);
        var decisions = new DecisionLog(config.decisions());
        var gates = new ArrayList<AccessGate>();
        for (GateConfig.Gate gate : config.gates()) {
            var started = new AccessGate(config, gate, decisions);
            var accept = new Thread(started::accept, "iam-gate-" + gate.service());
            accept.setDaemon(true);
            accept.start();
            gates.add(started);
        }
        return gates;
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                connections.execute(() -> serve(client));
            } catch (IOException e) {
                // closed
            }
        }
    }

    private void serve(Socket client) {
        try (client) {
            client.setTcpNoDelay(true);
            var in = new BufferedInputStream(client.getInputStream());
            var out = new BufferedOutputStream(client.getOutputStream());
            while (true) {
                Optional<HttpHead> request = HttpHead.read(in);
                if (request.isEmpty() || !handle(request.get(), client, in, out)) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the client went away, or sent what HTTP is not: nothing to answer
        }
    }

    /** Answers one request; false when the connection must close after it. */
    private boolean handle(HttpHead request, Socket client, InputStream in, OutputStream out) throws IOException {
        boolean close = request.header("Connection").map(v -> v.equalsIgnoreCase("close")).orElse(false);
        boolean expectsContinue = request.header("Expect")
                .map(v -> v.toLowerCase(Locale.ROOT).contains("100-continue")).orElse(false);
        boolean reads = protocol.readsBody(request);
        byte[] body = new byte[0];
        if (reads) {
            if (expectsContinue) {
                out.write(CONTINUE);
                out.flush();
            }
            body = Bodies.read(in, request, MAX_READ_BODY);
        }
        var authorization = SigV4.authorization(request);
        if (authorization.isEmpty()) {
            return refuse(request, Refusal.NOT_SIGNED, "the request carries no AWS Signature Version 4", reads,
                    expectsContinue, in, out, close);
        }
        final byte[] signedBody = body;
        String payloadHash = request.header("x-amz-content-sha256")
                .orElseGet(() -> SigV4.hex(SigV4.sha256(signedBody)));
        switch (SigV4.verify(request, authorization.get(), payloadHash, config.secrets()::get)) {
            case UNKNOWN_KEY -> {
                return refuse(request, Refusal.UNKNOWN_KEY, "The AWS access key id " + authorization.get()
                        .accessKeyId() + " does not exist in our records.", reads, expectsContinue, in, out, close);
            }
            case MISMATCH -> {
                return refuse(request, Refusal.SIGNATURE_MISMATCH, "The request signature we calculated does not "
                        + "match the signature you provided. Check your AWS Secret Access Key and signing method.",
                        reads, expectsContinue, in, out, close);
            }
            default -> {
                // signed with the access key's own secret
            }
        }
        Identity who = config.identities().get(authorization.get().accessKeyId());
        List<AccessRequest> accesses;
        try {
            accesses = protocol.accesses(request, body, config.account());
        } catch (RuntimeException e) {
            decisions.record(false, who.name(), "?", request.method() + " " + request.target());
            return refuse(request, Refusal.ACCESS_DENIED, "the local IAM gate cannot tell what this request asks: "
                    + e.getMessage(), reads, expectsContinue, in, out, close);
        }
        var verdicts = new ArrayList<Decision>();
        for (AccessRequest access : accesses) {
            Decision decision = config.authorizer().decide(who, access);
            decisions.record(decision.allowed(), who.name(), access.action(), access.resource());
            verdicts.add(decision);
        }
        Optional<Decision> denied = verdicts.stream().filter(decision -> !decision.allowed()).findFirst();
        if (denied.isPresent()) {
            Optional<Response> partly = protocol.partly(request, body, accesses, verdicts, this::send);
            if (partly.isPresent()) {
                partly.get().write(out, false, close);
                return !close;
            }
            return refuse(request, Refusal.ACCESS_DENIED, denied.get().reason(), reads, expectsContinue, in, out,
                    close);
        }
        if (!reads && expectsContinue) {
            out.write(CONTINUE);
            out.flush();
        }
        return forward(request, reads ? body : null, client, in, out, close);
    }

    /**
     * The service's refusal. A body not read yet is read and dropped first, so the client reads the answer rather than
     * a reset; one it was told to hold back ({@code Expect: 100-continue}) is never sent, so the connection closes.
     */
    private boolean refuse(HttpHead request, Refusal refusal, String message, boolean bodyRead, boolean expectsContinue,
            InputStream in, OutputStream out, boolean close) throws IOException {
        boolean closeAfter = close || !bodyRead && expectsContinue;
        if (!bodyRead && !expectsContinue) {
            Bodies.skip(in, request);
        }
        protocol.refusal(request, refusal, message).write(out, request.method().equals("HEAD"), closeAfter);
        return !closeAfter;
    }

    private boolean forward(HttpHead request, byte[] body, Socket client, InputStream in, OutputStream out,
            boolean close) throws IOException {
        Socket backend;
        try {
            backend = new Socket(InetAddress.getLoopbackAddress(), gate.backend());
        } catch (ConnectException e) {
            // The server is not listening (yet): the client sees a reset connection, as it would a closed port.
            client.setSoLinger(true, 0);
            return false;
        }
        try (backend) {
            backend.setTcpNoDelay(true);
            var toServer = new BufferedOutputStream(backend.getOutputStream());
            var fromServer = new BufferedInputStream(backend.getInputStream());
            var dropped = new ArrayList<>(HOP_BY_HOP);
            var added = new ArrayList<Map.Entry<String, String>>();
            if (body != null) {
                dropped.addAll(List.of("Transfer-Encoding", "Content-Length"));
                added.add(Map.entry("Content-Length", Integer.toString(body.length)));
            }
            added.add(Map.entry("Connection", "close"));
            request.without(dropped, added).write(toServer);
            if (body != null) {
                toServer.write(body);
            } else {
                Bodies.relay(in, toServer, request, false);
            }
            toServer.flush();
            HttpHead response = answer(fromServer);
            int status = response.status();
            boolean noBody = request.method().equals("HEAD") || status == 204 || status == 304;
            boolean toEnd = !noBody && !response.chunked() && response.contentLength() < 0;
            boolean closeAfter = close || toEnd;
            response.without(List.of("Connection", "Keep-Alive"),
                    closeAfter ? List.of(Map.entry("Connection", "close")) : List.of()).write(out);
            if (!noBody) {
                Bodies.relay(fromServer, out, response, true);
            }
            out.flush();
            return !closeAfter;
        }
    }

    /** The server's final answer, past any interim (1xx) one. */
    private static HttpHead answer(InputStream fromServer) throws IOException {
        while (true) {
            HttpHead response = HttpHead.read(fromServer)
                    .orElseThrow(() -> new EOFException("the server closed the connection without an answer"));
            if (response.status() / 100 != 1) {
                return response;
            }
        }
    }

    /** One request of the gate's own to the server (already authorized); its status, its body dropped. */
    private int send(HttpHead request, byte[] body) throws IOException {
        try (var backend = new Socket(InetAddress.getLoopbackAddress(), gate.backend())) {
            var toServer = new BufferedOutputStream(backend.getOutputStream());
            request.without(List.of("Connection", "Content-Length"), List.of(Map.entry("Content-Length",
                    Integer.toString(body.length)), Map.entry("Connection", "close"))).write(toServer);
            toServer.write(body);
            toServer.flush();
            var fromServer = new BufferedInputStream(backend.getInputStream());
            HttpHead response = answer(fromServer);
            return response.status();
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        connections.shutdownNow();
    }
}
