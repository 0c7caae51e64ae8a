package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A route the participant's agent drives longer than its time ({@code EVALUATOR_STANDIN_HOLD_AT_ROUTE}, a route id):
 * until EvalAI shows the submission's results with at least {@code EVALUATOR_STANDIN_HOLD_UNTIL_ROUTES} routes done
 * (default 0: any results), as the EvalAI stand-in's controls answer at {@code EVALUATOR_STANDIN_HOLD_UNTIL_SHOWN} (the
 * submission's URL there, asked once a second), and for {@code EVALUATOR_STANDIN_HOLD_SECONDS} (default 240) at most.
 * Without a URL the route lasts those seconds. What a local run checks while a submission drives (partial results
 * before its last route ends, a cancel or a lost node before its second does) so happens however slowly a loaded
 * machine starts the pod's processes and reports ({@code Scenario}).
 */
public final class HeldRoute {

    public static final String AT_ROUTE = "EVALUATOR_STANDIN_HOLD_AT_ROUTE";
    public static final String UNTIL_SHOWN = "EVALUATOR_STANDIN_HOLD_UNTIL_SHOWN";
    public static final String UNTIL_ROUTES = "EVALUATOR_STANDIN_HOLD_UNTIL_ROUTES";
    public static final String SECONDS = "EVALUATOR_STANDIN_HOLD_SECONDS";
    private static final Duration ASK_EVERY = Duration.ofSeconds(1);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String route;
    private final Optional<URI> shown;
    private final int routes;
    private final Duration longest;
    private HttpClient client;

    private HeldRoute(String route, Optional<URI> shown, int routes, Duration longest) {
        this.route = route;
        this.shown = shown;
        this.routes = routes;
        this.longest = longest;
    }

    /** The held route the knobs name, if any. */
    static Optional<HeldRoute> of(Map<String, String> env) {
        String route = env.get(AT_ROUTE);
        if (route == null || route.isBlank()) {
            return Optional.empty();
        }
        Optional<URI> shown = Optional.ofNullable(env.get(UNTIL_SHOWN)).filter(url -> !url.isBlank()).map(URI::create);
        int routes = Integer.parseInt(env.getOrDefault(UNTIL_ROUTES, "0"));
        Duration longest = Duration.ofMillis(Math.round(Double.parseDouble(env.getOrDefault(SECONDS, "240")) * 1000));
        return Optional.of(new HeldRoute(route, shown, routes, longest));
    }

    /** Whether the route with this number ({@code RouteScenario_<number>}) is the held one. */
    boolean at(String routeNumber) {
        return route.equals(routeNumber);
    }

    /** The hold of one drive of the route, from now. */
    Hold start() {
        return new Hold(System.nanoTime() + longest.toNanos());
    }

    /** One drive of the held route: over once EvalAI shows what it waits for, or its longest time passed. */
    final class Hold {

        private final long end;
        private long nextAsk = System.nanoTime();
        private boolean seen;

        private Hold(long end) {
            this.end = end;
        }

        boolean over() {
            if (seen || System.nanoTime() - end >= 0) {
                return true;
            }
            if (shown.isPresent() && System.nanoTime() - nextAsk >= 0) {
                nextAsk = System.nanoTime() + ASK_EVERY.toNanos();
                seen = routesShown().orElse(-1) >= routes;
            }
            return seen;
        }
    }

    /** The routes done EvalAI shows ({@code metadata._checkpoint.progress[0]}), empty before any results or unread. */
    private Optional<Integer> routesShown() {
        try {
            if (client == null) {
                client = HttpClient.newBuilder().connectTimeout(ASK_EVERY).build();
            }
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(shown.orElseThrow()).timeout(ASK_EVERY)
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                return Optional.empty();
            }
            JsonNode metadata = JSON.readTree(answer.body()).path("metadata");
            if (!metadata.isTextual() || metadata.asText().isBlank()) {
                return Optional.empty();
            }
            JsonNode progress = JSON.readTree(metadata.asText()).path("_checkpoint").path("progress");
            return Optional.of(progress.path(0).asInt(0));
        } catch (IOException e) {
            return Optional.empty(); // EvalAI not answering now: asked again
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
