package org.carla.leaderboard.localstack.evalai;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import com.sun.net.httpserver.HttpServer;

/**
 * The EvalAI stand-in: a real HTTP server on 127.0.0.1 with EvalAI's host API ({@code /api/jobs/...}, Bearer token),
 * the files EvalAI stores ({@code /media/...}), and the host-side controls both here as Java methods and over HTTP
 * under {@code /_standin/}. Built on the JDK's HTTP server: it needs nothing from the class path, so it behaves the
 * same inside any service's tests and in the stack's own process.
 */
public final class EvalAiStandIn implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(EvalAiStandIn.class);

    private final ExecutorService executor;
    private final ScheduledExecutorService outage = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "evalai-standin-outage");
        thread.setDaemon(true);
        return thread;
    });
    private final Submissions submissions;
    private final Faults faults = new Faults();
    private final HostApi hostApi;
    private final AdminApi admin;
    private final int port;
    private final String url;
    private final String token;
    private final EvalAiOptions options;
    /** Null while connections are refused (an outage of the whole host). */
    private HttpServer server;
    private ScheduledFuture<?> reopening;
    private boolean closed;

    private EvalAiStandIn(EvalAiOptions options) throws IOException {
        this.options = options;
        token = options.token();
        submissions = new Submissions(options);
        // Threads of their own, so injected latency on one call does not hold up the others.
        executor = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "evalai-standin");
            thread.setDaemon(true);
            return thread;
        });
        server = listen(options.port());
        port = server.getAddress().getPort();
        url = "http://127.0.0.1:" + port;
        hostApi = new HostApi(submissions, faults, options, url);
        admin = new AdminApi(submissions, faults, hostApi, this::refuseFor);
        route(server);
        LOG.infof("EvalAI stand-in on %s (challenge %d, phases %s)", url, options.challengePk(),
                options.phases().keySet());
    }

    private HttpServer listen(int onPort) throws IOException {
        HttpServer created = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 50);
        created.setExecutor(executor);
        return created;
    }

    private void route(HttpServer listening) {
        listening.createContext("/api/", hostApi);
        listening.createContext(AdminApi.PREFIX + "/", admin);
        listening.createContext("/media/", admin);
        listening.start();
    }

    public static EvalAiStandIn start(EvalAiOptions options) {
        try {
            return new EvalAiStandIn(options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the EvalAI stand-in on port " + options.port(), e);
        }
    }

    /** The base URL, for {@code quarkus.rest-client.evalai.url}: {@code http://127.0.0.1:<port>}. */
    public String url() {
        return url;
    }

    /**
     * The configuration that points a Quarkus service's EvalAI client here: {@code quarkus.rest-client.evalai.url},
     * {@code evalai.token} (the host's: a test token; the map is for test configuration, never for logs) and
     * {@code evalai.budget.per}, the period this stand-in throttles each user over (the services budget their calls
     * over the same).
     */
    public java.util.Map<String, String> quarkusConfig() {
        return java.util.Map.of("quarkus.rest-client.evalai.url", url, "evalai.token", token, "evalai.budget.per",
                options.throttlePeriod().toString());
    }

    /**
     * Whether the host token's user is a host of the challenge: false is a host team that dropped it (or a token of
     * the wrong account), which EvalAI's views answer as they answer any user who is not a host.
     */
    public void hostOfChallenge(boolean host) {
        hostApi.hostOfChallenge(host);
    }

    public int port() {
        return port;
    }

    /** The base URL of the host-side controls over HTTP. */
    public String controlUrl() {
        return url + AdminApi.PREFIX;
    }

    /** Creates a submission (status {@code submitted}) and publishes EvalAI's message for it. */
    public SubmissionView createSubmission(NewSubmission submission) {
        return unwrap(() -> submissions.create(submission));
    }

    /** The host cancels a submission that has not finished: status {@code cancelled}. */
    public SubmissionView cancel(long pk) {
        return unwrap(() -> submissions.cancel(pk));
    }

    /** The host resumes a failed submission: status {@code resuming}, the same pk published again. */
    public SubmissionView resume(long pk) {
        return unwrap(() -> submissions.resume(pk));
    }

    public Optional<SubmissionView> submission(long pk) {
        return submissions.view(pk);
    }

    public List<SubmissionView> submissions() {
        return submissions.all();
    }

    /** Every call the EvalAI API received, oldest first (faulted and refused ones included). */
    public List<RecordedCall> calls() {
        return hostApi.calls();
    }

    /** The next {@code calls} API calls are answered with {@code status} (a 5xx). */
    public void failNext(int calls, int status) {
        faults.failNext(calls, status);
    }

    /**
     * The next {@code calls} API calls of {@code method} whose path holds {@code pathPart} are answered with
     * {@code status} (a 5xx), as when one endpoint fails; the others are answered.
     */
    public void failNext(int calls, int status, String method, String pathPart) {
        faults.failNext(calls, status, method, pathPart);
    }

    /** Every API call for {@code duration} from now is answered with {@code status} (a 5xx). */
    public void failFor(Duration duration, int status) {
        faults.failFor(duration, status);
    }

    /** Every API call for {@code duration} from now is answered 429 with {@code Retry-After} (EvalAI's throttling). */
    public void throttleFor(Duration duration, Duration retryAfter) {
        faults.throttleFor(duration, retryAfter);
    }

    /**
     * Every API call for {@code duration} from now gets no answer (recorded with status 0): the caller's own timeout
     * fires; when the duration ends, the connection is closed unanswered.
     */
    public void hangFor(Duration duration) {
        faults.hangFor(duration);
    }

    /**
     * Stops listening for {@code duration}: every connection is refused, the host controls' URL included (use the
     * Java API meanwhile); then it listens again on the same port with everything it held.
     */
    public synchronized void refuseFor(Duration duration) {
        if (closed) {
            throw new IllegalStateException("the EvalAI stand-in is closed");
        }
        if (server != null) {
            server.stop(0);
            server = null;
        }
        if (reopening != null) {
            reopening.cancel(false);
        }
        reopening = outage.schedule(this::reopen, duration.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Whether it accepts connections (false during {@link #refuseFor}). */
    public synchronized boolean listening() {
        return server != null;
    }

    private synchronized void reopen() {
        if (closed || server != null) {
            return;
        }
        try {
            HttpServer reopened = listen(port);
            route(reopened);
            server = reopened;
        } catch (IOException e) {
            // Taken meanwhile by another process: try again shortly, as a host coming back would.
            LOG.warnf("EvalAI stand-in cannot listen on %d again yet: %s", port, e.getMessage());
            reopening = outage.schedule(this::reopen, 200, TimeUnit.MILLISECONDS);
        }
    }

    /** Every API call waits {@code latency} before it is handled. */
    public void latency(Duration latency) {
        faults.latency(latency);
    }

    /** Ends every fault, a refusal of connections included. */
    public void clearFaults() {
        faults.clear();
        synchronized (this) {
            if (reopening != null) {
                reopening.cancel(false);
            }
            reopen();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        outage.shutdownNow();
        if (server != null) {
            server.stop(0);
            server = null;
        }
        executor.shutdownNow();
    }

    private static <T> T unwrap(java.util.function.Supplier<T> operation) {
        try {
            return operation.get();
        } catch (EvalAiError e) {
            throw new IllegalStateException(e.getMessage());
        }
    }
}
