package org.carla.leaderboard.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.localstack.run.LocalSystem;

/**
 * A service's metrics as an operator's Prometheus scrapes them from {@code /q/metrics}: the sum of one metric's series
 * whose labels include the given ones (0 when the service has none yet).
 */
final class ServiceMetrics {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern SERIES = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private ServiceMetrics() {
    }

    static double sum(LocalSystem system, String service, String metric, Map<String, String> labels) {
        String text = scrape(system, service);
        double sum = 0;
        for (String line : text.split("\n")) {
            Matcher series = SERIES.matcher(line);
            if (line.startsWith("#") || !series.find() || !series.group(1).equals(metric)) {
                continue;
            }
            var found = new java.util.HashMap<String, String>();
            Matcher label = LABEL.matcher(series.group(2) == null ? "" : series.group(2));
            while (label.find()) {
                found.put(label.group(1), label.group(2));
            }
            if (found.entrySet().containsAll(labels.entrySet())) {
                sum += Double.parseDouble(series.group(3));
            }
        }
        return sum;
    }

    private static String scrape(LocalSystem system, String service) {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + system.service(service).port()
                + "/q/metrics")).timeout(Duration.ofSeconds(20)).GET().build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(service + "'s /q/metrics answered " + response.statusCode());
            }
            return response.body();
        } catch (IOException e) {
            throw new IllegalStateException("cannot scrape " + service + "'s metrics: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while scraping " + service, e);
        }
    }
}
