package org.carla.leaderboard.localstack.gate;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The start line and headers of an HTTP/1.1 message, kept as sent (the signature covers them), with the framing of its
 * body: {@code Content-Length}, {@code chunked}, or (a response only) until the connection closes.
 *
 * @param startLine the request line ({@code PUT /bucket/key?uploadId=1 HTTP/1.1}) or the status line
 * @param headers   name and value of each header line, in order
 */
public record HttpHead(String startLine, List<Map.Entry<String, String>> headers) {

    private static final int MAX_HEAD = 64 * 1024;

    public HttpHead {
        headers = List.copyOf(headers);
    }

    /** The next message's head, or empty at the end of the stream before its first byte. */
    static Optional<HttpHead> read(InputStream in) throws IOException {
        var bytes = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                if (bytes.size() == 0) {
                    return Optional.empty();
                }
                throw new EOFException("the connection closed inside a message head");
            }
            bytes.write(b);
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1 : (b == '\r' ? 1 : 0);
            if (bytes.size() > MAX_HEAD) {
                throw new IOException("a message head longer than " + MAX_HEAD + " bytes");
            }
        }
        String[] lines = bytes.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        var headers = new ArrayList<Map.Entry<String, String>>();
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].isEmpty()) {
                continue;
            }
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                throw new IOException("a malformed header line: " + lines[i]);
            }
            headers.add(Map.entry(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim()));
        }
        return Optional.of(new HttpHead(lines[0], headers));
    }

    public String method() {
        return startLine.substring(0, startLine.indexOf(' '));
    }

    /** The request target as sent: path and query, still percent-encoded. */
    public String target() {
        String[] parts = startLine.split(" ");
        return parts.length > 1 ? parts[1] : "/";
    }

    /** The path as sent (percent-encoded). */
    public String rawPath() {
        String target = target();
        int question = target.indexOf('?');
        return question < 0 ? target : target.substring(0, question);
    }

    public String rawQuery() {
        String target = target();
        int question = target.indexOf('?');
        return question < 0 ? "" : target.substring(question + 1);
    }

    /** The query's parameters, decoded; a parameter without {@code =} ({@code ?uploads}) has the value "". */
    public Map<String, String> query() {
        return form(rawQuery());
    }

    /** An {@code application/x-www-form-urlencoded} text (or a query string) decoded, the first value of each name. */
    static Map<String, String> form(String text) {
        var parameters = new LinkedHashMap<String, String>();
        for (String pair : text.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals));
            parameters.putIfAbsent(name, equals < 0 ? "" : decode(pair.substring(equals + 1)));
        }
        return parameters;
    }

    static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    public int status() {
        String[] parts = startLine.split(" ");
        return Integer.parseInt(parts[1]);
    }

    public Optional<String> header(String name) {
        return headers.stream().filter(h -> h.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue).findFirst();
    }

    /** Every value of the header, in order. */
    public List<String> headerValues(String name) {
        return headers.stream().filter(h -> h.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue).toList();
    }

    boolean chunked() {
        return header("Transfer-Encoding").map(v -> v.toLowerCase(Locale.ROOT).contains("chunked")).orElse(false);
    }

    /** The body's length from {@code Content-Length}; -1 without one. */
    long contentLength() {
        return header("Content-Length").map(String::trim).map(Long::parseLong).orElse(-1L);
    }

    /** The same head without the named headers and with the extra ones appended. */
    HttpHead without(List<String> names, List<Map.Entry<String, String>> extra) {
        var kept = new ArrayList<Map.Entry<String, String>>();
        for (var header : headers) {
            if (names.stream().noneMatch(name -> name.equalsIgnoreCase(header.getKey()))) {
                kept.add(header);
            }
        }
        kept.addAll(extra);
        return new HttpHead(startLine, kept);
    }

    void write(OutputStream out) throws IOException {
        var text = new StringBuilder(startLine).append("\r\n");
        headers.forEach(header -> text.append(header.getKey()).append(": ").append(header.getValue()).append("\r\n"));
        text.append("\r\n");
        out.write(text.toString().getBytes(StandardCharsets.ISO_8859_1));
    }
}
