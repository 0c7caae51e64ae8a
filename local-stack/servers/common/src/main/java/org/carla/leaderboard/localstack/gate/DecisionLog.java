package org.carla.leaderboard.localstack.gate;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Every decision of the gates of one server, one line each, appended as it is made (a killed server loses none):
 * {@code <epoch millis> TAB ALLOW|DENY TAB <principal> TAB <action> TAB <resource>}. The local stack reads these
 * files to compare the calls a run made with what {@code deploy/aws} grants.
 */
final class DecisionLog implements AutoCloseable {

    private final OutputStream out;

    DecisionLog(Path file) {
        try {
            out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + file, e);
        }
    }

    synchronized void record(boolean allowed, String principal, String action, String resource) {
        String line = System.currentTimeMillis() + "\t" + (allowed ? "ALLOW" : "DENY") + "\t" + principal + "\t"
                + action + "\t" + resource.replace('\t', ' ').replace('\n', ' ') + "\n";
        try {
            out.write(line.getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record an IAM decision", e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
