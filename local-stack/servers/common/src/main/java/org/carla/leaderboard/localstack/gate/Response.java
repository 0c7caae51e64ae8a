package org.carla.leaderboard.localstack.gate;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A whole response the gate answers itself (a refusal, or S3's result of a partly refused DeleteObjects). */
record Response(int status, String reason, String contentType, List<Map.Entry<String, String>> headers, byte[] body) {

    Response {
        headers = List.copyOf(headers);
    }

    static Response text(int status, String reason, String contentType, List<Map.Entry<String, String>> headers,
            String body) {
        return new Response(status, reason, contentType, headers, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes it; a response to HEAD carries its length but no body, as HTTP says. */
    void write(OutputStream out, boolean head, boolean close) throws IOException {
        var lines = new ArrayList<Map.Entry<String, String>>(headers);
        lines.add(Map.entry("Content-Type", contentType));
        lines.add(Map.entry("Content-Length", Integer.toString(head ? 0 : body.length)));
        if (close) {
            lines.add(Map.entry("Connection", "close"));
        }
        new HttpHead("HTTP/1.1 " + status + " " + reason, lines).write(out);
        if (!head) {
            out.write(body);
        }
        out.flush();
    }
}
