package org.carla.leaderboard.localstack.evalai;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jboss.logging.Logger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/**
 * EvalAI's host API under {@code /api/}: the submission read, the challenge's submission list (by status and time of
 * submission), the three update endpoints and the host's cancel and resume, behind the injected faults, the Bearer
 * token (the host's or another user's), EvalAI's throttle of each user and the call recorder. Paths are EvalAI's
 * exactly (no trailing slash on the read; a trailing slash and the plural {@code challenges} on the partial update).
 * In Django REST framework's order: authentication (401), then the throttle (429), then the view, which answers a user
 * who is not a host of the challenge as each of EvalAI's views does ({@link Submissions}).
 */
final class HostApi implements HttpHandler {

    private static final Logger LOG = Logger.getLogger(HostApi.class);
    private static final Pattern SUBMISSION = Pattern.compile("/api/jobs/submission/([0-9]+)");
    private static final Pattern UPDATE = Pattern.compile("/api/jobs/challenge/([0-9]+)/update_submission/");
    private static final Pattern META = Pattern.compile(
            "/api/jobs/challenges/([0-9]+)/submissions/([0-9]+)/update_submission_meta/");
    private static final Pattern RESUME = Pattern.compile("/api/jobs/submissions/([0-9]+)/resume/");
    private static final Pattern PARTIAL = Pattern.compile(
            "/api/jobs/challenges/([0-9]+)/update_partially_evaluated_submission/");
    private static final Pattern LIST = Pattern.compile("/api/jobs/challenge/([0-9]+)/submission/");

    private final Submissions submissions;
    private final Faults faults;
    private final Map<String, byte[]> authorizations = new java.util.LinkedHashMap<>();
    private final String hostToken;
    private final Throttle throttle;
    private final java.time.Clock clock;
    private final String baseUrl;
    /** Whether the host token's user is still a host of the challenge (a host team can drop a member). */
    private volatile boolean hostOfChallenge = true;
    /** The recorded status of a call left unanswered (a hang). */
    static final int NO_ANSWER = 0;
    private final List<RecordedCall> calls = new CopyOnWriteArrayList<>();

    HostApi(Submissions submissions, Faults faults, EvalAiOptions options, String baseUrl) {
        this.submissions = submissions;
        this.faults = faults;
        this.hostToken = options.token();
        authorizations.put(options.token(), ("Bearer " + options.token()).getBytes(StandardCharsets.UTF_8));
        options.users().forEach(user -> authorizations.put(user, ("Bearer " + user).getBytes(StandardCharsets.UTF_8)));
        this.throttle = new Throttle(options.throttleRequests(), options.throttlePeriod(), options.clock());
        this.clock = options.clock();
        this.baseUrl = baseUrl;
    }

    void hostOfChallenge(boolean host) {
        hostOfChallenge = host;
    }

    List<RecordedCall> calls() {
        return List.copyOf(calls);
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        Instant arrived = clock.instant(); // as EvalAI's throttle counts a request: when it comes in
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath();
        String query = exchange.getRequestURI().getRawQuery();
        String body = "";
        int status;
        Object answer;
        Faults.Failure failure = null;
        Long retryAfter = null;
        try {
            body = Exchanges.body(exchange);
            sleep(faults.latency());
            if (faults.hanging()) {
                // No answer: the caller's timeout fires first; when the hang ends the connection closes unanswered.
                calls.add(new RecordedCall(method, query == null ? path : path + "?" + query, body, NO_ANSWER,
                        arrived));
                try {
                    faults.awaitHangEnd();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                exchange.close();
                return;
            }
            failure = faults.nextFailure(method, path).orElse(null);
            if (failure != null) {
                status = failure.status();
                answer = status == 429 ? Map.of("detail", throttled(failure.retryAfter())) : null;
            } else {
                String user = authenticate(exchange);
                retryAfter = throttle.refuse(user).orElse(null);
                if (retryAfter != null) {
                    status = 429;
                    answer = Map.of("detail", throttled(Duration.ofSeconds(retryAfter)));
                } else {
                    answer = route(method, path, query, Exchanges.data(exchange, body),
                            hostOfChallenge && user.equals(hostToken));
                    status = 200;
                }
            }
        } catch (EvalAiError e) {
            status = e.status;
            answer = e.body;
            if (status == 401) {
                exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"api\"");
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "EvalAI stand-in: %s %s failed", method, path);
            status = 500;
            answer = Map.of("error", "Internal Server Error");
        }
        calls.add(new RecordedCall(method, query == null ? path : path + "?" + query, body, status, arrived));
        LOG.debugf("EvalAI stand-in: %s %s -> %d", method, path, status);
        if (status == 429 && failure != null) {
            exchange.getResponseHeaders().set("Retry-After", Long.toString(failure.retryAfter().toSeconds()));
        } else if (status == 429) {
            exchange.getResponseHeaders().set("Retry-After", Long.toString(retryAfter));
        }
        if (answer == null) {
            // An injected fault looks like the proxy in front of EvalAI failing: an HTML page, not JSON.
            Exchanges.send(exchange, status, "text/html", ("<html><body><h1>" + status
                    + " Service Unavailable</h1></body></html>").getBytes(StandardCharsets.UTF_8));
        } else {
            Exchanges.json(exchange, status, answer);
        }
    }

    /** {@code host}: the caller is a host of the stand-in's challenge. */
    private Object route(String method, String path, String query, Map<String, Object> data, boolean host) {
        Matcher matcher;
        if ((matcher = LIST.matcher(path)).matches()) {
            allow(method, "GET");
            Map<String, String> params = Exchanges.queryParams(query);
            return submissions.list(Long.parseLong(matcher.group(1)), host, params.get("status"),
                    params.get("submitted_after"), params.get("submitted_before"), baseUrl);
        }
        if ((matcher = SUBMISSION.matcher(path)).matches()) {
            allow(method, "GET");
            return submissions.read(Long.parseLong(matcher.group(1)), host, baseUrl);
        }
        if ((matcher = UPDATE.matcher(path)).matches()) {
            allow(method, "PUT", "PATCH");
            long challenge = Long.parseLong(matcher.group(1));
            return "PUT".equals(method) ? submissions.updateFinal(challenge, host, data)
                    : submissions.patch(challenge, host, data, baseUrl);
        }
        if ((matcher = PARTIAL.matcher(path)).matches()) {
            allow(method, "PUT", "PATCH");
            long challenge = Long.parseLong(matcher.group(1));
            return "PUT".equals(method) ? submissions.updatePartial(challenge, host, data)
                    : submissions.patch(challenge, host, data, baseUrl);
        }
        if ((matcher = META.matcher(path)).matches()) {
            allow(method, "PATCH");
            return submissions.updateMeta(Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)), host,
                    data, baseUrl);
        }
        if ((matcher = RESUME.matcher(path)).matches()) {
            allow(method, "POST");
            return submissions.hostResume(Long.parseLong(matcher.group(1)), host);
        }
        throw new EvalAiError(404, "detail", "Not found.");
    }

    /** The caller's token (the user the throttle counts), checked in constant time against every user's. */
    private String authenticate(HttpExchange exchange) {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        if (header == null || header.isBlank()) {
            throw new EvalAiError(401, "detail", "Authentication credentials were not provided.");
        }
        byte[] given = header.trim().getBytes(StandardCharsets.UTF_8);
        String user = null;
        for (var known : authorizations.entrySet()) {
            if (MessageDigest.isEqual(given, known.getValue())) {
                user = known.getKey();
            }
        }
        if (user == null) {
            throw new EvalAiError(401, "detail", "Given token not valid for any token type");
        }
        return user;
    }

    private static void allow(String method, String... allowed) {
        if (!List.of(allowed).contains(method)) {
            throw new EvalAiError(405, "detail", "Method \"" + method + "\" not allowed.");
        }
    }

    /** Django REST framework's throttled answer. */
    private static String throttled(Duration retryAfter) {
        long seconds = retryAfter.toSeconds();
        return "Request was throttled. Expected available in " + seconds + (seconds == 1 ? " second." : " seconds.");
    }

    private static void sleep(Duration latency) {
        if (latency.isZero()) {
            return;
        }
        try {
            Thread.sleep(latency.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
