package org.carla.leaderboard.localstack.evalai;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;

import org.carla.leaderboard.domain.event.EventCodec;

/** Reading requests and writing answers the way Django REST framework does for EvalAI. */
final class Exchanges {

    /** A request body larger than this is refused: the stand-in keeps what it receives in memory. */
    private static final int MAX_BODY = 16 * 1024 * 1024;

    private Exchanges() {
    }

    static String body(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] bytes = in.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                throw new EvalAiError(413, "detail", "Request body too large");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /** DRF's {@code request.query_params} (and form fields): the first value of each name, decoded; empty for none. */
    static Map<String, String> queryParams(String rawQuery) {
        Map<String, String> params = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return params;
        }
        for (String pair : rawQuery.split("&")) {
            int equals = pair.indexOf('=');
            String key = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
            String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
            params.putIfAbsent(key, value);
        }
        return params;
    }

    /** DRF's {@code request.data}: a JSON object, or form fields (EvalAI's own worker sends form-encoded data). */
    static Map<String, Object> data(HttpExchange exchange, String body) {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (body.isBlank()) {
            return Map.of();
        }
        if (type != null && type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
            // Form fields are encoded as a query string is.
            return new LinkedHashMap<>(queryParams(body));
        }
        if (type != null && !type.toLowerCase().startsWith("application/json")) {
            // DRF's answer; multipart (file uploads) is not part of the host API the backend uses.
            throw new EvalAiError(415, "detail", "Unsupported media type \"" + type + "\" in request.");
        }
        try {
            JsonNode node = EventCodec.mapper().readTree(body);
            if (node == null || !node.isObject()) {
                throw new EvalAiError(400, "detail", "JSON parse error - expected an object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> map = EventCodec.mapper().convertValue(node, Map.class);
            return map;
        } catch (JacksonException e) {
            throw new EvalAiError(400, "detail", "JSON parse error - " + e.getOriginalMessage());
        }
    }

    static void json(HttpExchange exchange, int status, Object body) throws IOException {
        byte[] bytes;
        try {
            bytes = EventCodec.mapper().writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IOException(e);
        }
        send(exchange, status, "application/json", bytes);
    }

    static void send(HttpExchange exchange, int status, String contentType, byte[] bytes) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }
}
