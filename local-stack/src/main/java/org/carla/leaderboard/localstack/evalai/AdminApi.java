package org.carla.leaderboard.localstack.evalai;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jboss.logging.Logger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/**
 * The host-side controls over HTTP, for the demo script, under {@value #PREFIX} (loopback only, no token: they stand
 * for the host clicking in EvalAI's UI). Same operations as {@link EvalAiStandIn}'s Java API; JSON in snake case.
 */
final class AdminApi implements HttpHandler {

    static final String PREFIX = "/_standin";
    private static final Logger LOG = Logger.getLogger(AdminApi.class);
    private static final Pattern ONE = Pattern.compile(PREFIX + "/submissions/([0-9]+)");
    private static final Pattern ACTION = Pattern.compile(PREFIX + "/submissions/([0-9]+)/(cancel|resume)");
    private static final Pattern MEDIA = Pattern.compile(
            "/media/submission_files/submission_([0-9]+)/([a-z_]+\\.(?:txt|json))");

    private final Submissions submissions;
    private final Faults faults;
    private final HostApi hostApi;
    private final Consumer<Duration> refuseFor;

    AdminApi(Submissions submissions, Faults faults, HostApi hostApi, Consumer<Duration> refuseFor) {
        this.submissions = submissions;
        this.faults = faults;
        this.hostApi = hostApi;
        this.refuseFor = refuseFor;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath();
        try {
            Matcher matcher;
            if ((matcher = MEDIA.matcher(path)).matches() && "GET".equals(method)) {
                String content = submissions.file(Long.parseLong(matcher.group(1)), matcher.group(2))
                        .orElseThrow(() -> new EvalAiError(404, "detail", "Not found."));
                Exchanges.send(exchange, 200, matcher.group(2).endsWith(".json") ? "application/json" : "text/plain",
                        content.getBytes(StandardCharsets.UTF_8));
                return;
            }
            Map<String, Object> data = Exchanges.data(exchange, Exchanges.body(exchange));
            if (path.equals(PREFIX + "/submissions") && "POST".equals(method)) {
                Object asStrings = data.get("pks_as_strings");
                var request = new NewSubmission(number(data, "team_id"), string(data, "team_name"),
                        number(data, "phase_pk"), string(data, "image"),
                        asStrings == null ? null : Boolean.valueOf(asStrings.toString()));
                Exchanges.json(exchange, 201, submissions.create(request));
            } else if (path.equals(PREFIX + "/submissions") && "GET".equals(method)) {
                Exchanges.json(exchange, 200, submissions.all());
            } else if ((matcher = ONE.matcher(path)).matches() && "GET".equals(method)) {
                long pk = Long.parseLong(matcher.group(1));
                Exchanges.json(exchange, 200, submissions.view(pk)
                        .orElseThrow(() -> new EvalAiError(404, "error", "Submission " + pk + " does not exist")));
            } else if ((matcher = ACTION.matcher(path)).matches() && "POST".equals(method)) {
                long pk = Long.parseLong(matcher.group(1));
                Exchanges.json(exchange, 200, "cancel".equals(matcher.group(2)) ? submissions.cancel(pk)
                        : submissions.resume(pk));
            } else if (path.equals(PREFIX + "/calls") && "GET".equals(method)) {
                Exchanges.json(exchange, 200, hostApi.calls());
            } else if (path.equals(PREFIX + "/faults") && "POST".equals(method)) {
                int status = data.containsKey("status") ? (int) number(data, "status") : 503;
                if (data.containsKey("fail_next")) {
                    faults.failNext((int) number(data, "fail_next"), status);
                }
                if (data.containsKey("fail_for_seconds")) {
                    faults.failFor(Duration.ofSeconds(number(data, "fail_for_seconds")), status);
                }
                if (data.containsKey("latency_millis")) {
                    faults.latency(Duration.ofMillis(number(data, "latency_millis")));
                }
                if (data.containsKey("throttle_for_seconds")) {
                    faults.throttleFor(Duration.ofSeconds(number(data, "throttle_for_seconds")),
                            Duration.ofSeconds(data.containsKey("retry_after_seconds")
                                    ? number(data, "retry_after_seconds") : 60));
                }
                if (data.containsKey("hang_for_seconds")) {
                    faults.hangFor(Duration.ofSeconds(number(data, "hang_for_seconds")));
                }
                Duration refuse = data.containsKey("refuse_for_seconds")
                        ? Duration.ofSeconds(number(data, "refuse_for_seconds")) : null;
                Exchanges.json(exchange, 200, Map.of("success", "faults set"));
                if (refuse != null) {
                    // After the answer: this very connection is one the outage closes.
                    refuseFor.accept(refuse);
                }
            } else if (path.equals(PREFIX + "/faults") && "DELETE".equals(method)) {
                faults.clear();
                Exchanges.json(exchange, 200, Map.of("success", "faults cleared"));
            } else {
                throw new EvalAiError(404, "detail", "Not found.");
            }
        } catch (EvalAiError e) {
            Exchanges.json(exchange, e.status, e.body);
        } catch (IllegalArgumentException | NullPointerException e) {
            Exchanges.json(exchange, 400, Map.of("error", String.valueOf(e.getMessage())));
        } catch (RuntimeException e) {
            LOG.errorf(e, "EvalAI stand-in control %s %s failed", method, path);
            Exchanges.json(exchange, 500, Map.of("error", String.valueOf(e.getMessage())));
        }
    }

    private static long number(Map<String, Object> data, String field) {
        Long value = Submissions.pk(data.get(field));
        if (value == null) {
            throw new IllegalArgumentException(field + " must be a non-negative integer");
        }
        return value;
    }

    private static String string(Map<String, Object> data, String field) {
        Object value = data.get(field);
        if (!(value instanceof String text) || text.isBlank()) {
            throw new IllegalArgumentException(field + " must be a non-blank string");
        }
        return text;
    }
}
