package org.carla.leaderboard.localstack.gate;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Reading, relaying and skipping an HTTP/1.1 message body by its framing. */
final class Bodies {

    private static final int BUFFER = 64 * 1024;

    private Bodies() {
    }

    /** A request's whole body, de-chunked; {@link IOException} past {@code max} bytes. */
    static byte[] read(InputStream in, HttpHead head, long max) throws IOException {
        var out = new ByteArrayOutputStream();
        if (head.chunked()) {
            var raw = new ByteArrayOutputStream();
            copyChunked(in, raw, out, max);
        } else {
            long length = Math.max(0, head.contentLength());
            if (length > max) {
                throw new IOException("a body of " + length + " bytes, more than the " + max + " this gate reads");
            }
            copy(in, out, length);
        }
        return out.toByteArray();
    }

    /** Copies the body as framed (raw chunks, or {@code Content-Length} bytes, or to the end when it has neither). */
    static void relay(InputStream in, OutputStream out, HttpHead head, boolean toEndWithoutLength) throws IOException {
        if (head.chunked()) {
            copyChunked(in, out, null, Long.MAX_VALUE);
        } else if (head.contentLength() >= 0) {
            copy(in, out, head.contentLength());
        } else if (toEndWithoutLength) {
            in.transferTo(out);
        }
    }

    /** Reads and drops a request's body, so the connection can carry the answer and the next request. */
    static void skip(InputStream in, HttpHead head) throws IOException {
        relay(in, OutputStream.nullOutputStream(), head, false);
    }

    private static void copy(InputStream in, OutputStream out, long length) throws IOException {
        byte[] buffer = new byte[BUFFER];
        long left = length;
        while (left > 0) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (read < 0) {
                throw new EOFException("the body ended " + left + " bytes early");
            }
            out.write(buffer, 0, read);
            left -= read;
        }
    }

    /** Copies chunked framing to {@code raw} as is and, when {@code data} is given, the chunks' data to it. */
    private static void copyChunked(InputStream in, OutputStream raw, OutputStream data, long max) throws IOException {
        long total = 0;
        while (true) {
            String sizeLine = line(in);
            raw.write((sizeLine + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            int semicolon = sizeLine.indexOf(';');
            long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
            if (size == 0) {
                // trailers, then the empty line
                while (true) {
                    String trailer = line(in);
                    raw.write((trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    if (trailer.isEmpty()) {
                        return;
                    }
                }
            }
            total += size;
            if (total > max) {
                throw new IOException("a chunked body of more than the " + max + " bytes this gate reads");
            }
            var chunk = new ByteArrayOutputStream();
            copy(in, chunk, size);
            chunk.writeTo(raw);
            if (data != null) {
                chunk.writeTo(data);
            }
            String end = line(in);
            if (!end.isEmpty()) {
                throw new IOException("a chunk not followed by CRLF");
            }
            raw.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
    }

    private static String line(InputStream in) throws IOException {
        var bytes = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the connection closed inside a chunked body");
            }
            if (b == '\n') {
                String text = bytes.toString(StandardCharsets.ISO_8859_1);
                return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
            }
            bytes.write(b);
        }
    }
}
