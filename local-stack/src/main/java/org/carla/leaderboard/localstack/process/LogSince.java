package org.carla.leaderboard.localstack.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's part of a log it shares with earlier starts: where its start began ({@link #mark}), and what it wrote
 * from there on ({@link #read}), so a retry never takes an earlier start's failure for its own.
 */
public final class LogSince {

    private LogSince() {
    }

    /** The log's size now: the offset a start about to write to it begins at (0 when there is no log yet). */
    public static long mark(Path log) {
        try {
            return Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** At most {@code limit} bytes of the log from {@code offset} on; empty when it cannot be read. */
    public static String read(Path log, long offset, int limit) {
        try (var in = Files.newInputStream(log)) {
            in.skipNBytes(offset);
            return new String(in.readNBytes(limit), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
