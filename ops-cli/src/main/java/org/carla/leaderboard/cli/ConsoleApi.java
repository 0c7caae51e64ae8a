package org.carla.leaderboard.cli;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * ops-console's API as the command line calls it: the operator's token as a Bearer header (from {@code OPS_TOKEN} or a
 * file, never from the command line, where {@code ps} would show it), JSON in and out, the console's own error text
 * on a refusal.
 */
final class ConsoleApi {

    /** The console refused (4xx): its words; nothing was changed. */
    static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }

    /** The console could not be reached or failed (5xx): nothing can be said of what changed. */
    static final class Unavailable extends RuntimeException {
        Unavailable(String message) {
            super(message);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;
    private final String token;

    ConsoleApi(String url, String token) {
        this.base = URI.create(url.endsWith("/") ? url : url + "/");
        this.token = token;
    }

    /** The token: {@code --token-file} if given, else {@code OPS_TOKEN}; a clear error when neither is set. */
    static String token(Path tokenFile, Map<String, String> environment) {
        try {
            String token = tokenFile != null ? Files.readString(tokenFile).trim() : environment.get("OPS_TOKEN");
            if (token == null || token.isBlank()) {
                throw new Refused("no operator token: set OPS_TOKEN or pass --token-file FILE");
            }
            return token.trim();
        } catch (IOException e) {
            throw new Refused("cannot read the token file " + tokenFile + ": " + e.getMessage());
        }
    }

    JsonNode get(String path, Map<String, String> query) {
        return send(HttpRequest.newBuilder(uri(path, query)).GET());
    }

    JsonNode post(String path, Map<String, String> query, Object body) {
        try {
            return send(HttpRequest.newBuilder(uri(path, query)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : JSON.writeValueAsString(body))));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private JsonNode send(HttpRequest.Builder request) {
        HttpResponse<String> response;
        try {
            response = http.send(request.header("Authorization", "Bearer " + token).header("Accept",
                    "application/json").timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (ConnectException e) {
            throw new Unavailable("cannot reach ops-console at " + base + " (kubectl -n leaderboard port-forward "
                    + "svc/ops-console 8080:80, or --url)");
        } catch (IOException e) {
            throw new Unavailable("ops-console at " + base + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted");
        }
        JsonNode body = parse(response.body());
        int status = response.statusCode();
        if (status == 401 || status == 499) {
            throw new Refused("ops-console did not accept the token (HTTP " + status + ")");
        }
        if (status == 403) {
            throw new Refused("this identity is not an operator (HTTP 403)");
        }
        String error = body != null && body.hasNonNull("error") ? body.get("error").asText() : "HTTP " + status;
        if (status >= 500) {
            throw new Unavailable(error);
        }
        if (status >= 400) {
            throw new Refused(error);
        }
        return body;
    }

    private URI uri(String path, Map<String, String> query) {
        var present = new LinkedHashMap<String, String>();
        query.forEach((key, value) -> {
            if (value != null && !value.isBlank()) {
                present.put(key, value);
            }
        });
        String search = present.entrySet().stream().map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(),
                StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        return base.resolve(path + (search.isEmpty() ? "" : "?" + search));
    }

    private static JsonNode parse(String text) {
        try {
            return text == null || text.isBlank() ? null : JSON.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }
}
