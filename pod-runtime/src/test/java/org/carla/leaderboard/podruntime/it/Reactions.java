package org.carla.leaderboard.podruntime.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Locale;

/** Measured reaction times, appended to target/reaction-times.txt for the README (measured, not asserted tightly). */
final class Reactions {

    static final Path REPORT = Path.of("target", "reaction-times.txt");

    private Reactions() {
    }

    static synchronized void record(String what, long nanos) {
        String line = String.format(Locale.ROOT, "%s %s: %.1f ms%n", Instant.now(), what, nanos / 1e6);
        try {
            Files.writeString(REPORT, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
