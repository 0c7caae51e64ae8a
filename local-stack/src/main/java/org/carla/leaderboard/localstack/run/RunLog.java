package org.carla.leaderboard.localstack.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.FileHandler;
import java.util.logging.Handler;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/** The stack's own log lines (Job runner, servers) go to a file, so the console shows the progress lines only. */
public final class RunLog {

    private RunLog() {
    }

    /** Sends this JVM's java.util.logging output to {@code file} instead of the console. */
    public static Path toFile(Path file) {
        try {
            Files.createDirectories(file.getParent());
            Logger root = Logger.getLogger("");
            for (Handler handler : root.getHandlers()) {
                root.removeHandler(handler);
            }
            var handler = new FileHandler(file.toString(), true);
            handler.setFormatter(new SimpleFormatter());
            root.addHandler(handler);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot log to " + file, e);
        }
    }
}
