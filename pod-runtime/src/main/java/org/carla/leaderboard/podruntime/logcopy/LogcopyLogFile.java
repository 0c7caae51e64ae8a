package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.logging.ErrorManager;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import org.jboss.logmanager.ExtLogRecord;

/**
 * Logcopy's own output in {@code logcopy/logcopy.log} of the logs volume as well as on the console, so it is uploaded
 * with the rest: a handler on the root logger, appending (a restarted logcopy continues the file).
 */
public final class LogcopyLogFile extends Handler implements AutoCloseable {

    private final Writer out;

    private LogcopyLogFile(Writer out) {
        this.out = out;
        setLevel(Level.INFO);
    }

    /** Adds the handler to the root logger; close it to remove it. */
    public static LogcopyLogFile attach(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        var handler = new LogcopyLogFile(Files.newBufferedWriter(file, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE));
        Logger.getLogger("").addHandler(handler);
        return handler;
    }

    @Override
    public synchronized void publish(LogRecord record) {
        if (!isLoggable(record)) {
            return;
        }
        String message = record instanceof ExtLogRecord ext ? ext.getFormattedMessage()
                : new SimpleFormatter().formatMessage(record);
        var line = new StringBuilder(128)
                .append(Instant.ofEpochMilli(record.getMillis())).append(' ')
                .append(record.getLevel().getName()).append(' ')
                .append(message).append('\n');
        if (record.getThrown() != null) {
            var trace = new StringWriter();
            record.getThrown().printStackTrace(new PrintWriter(trace));
            line.append(trace);
        }
        try {
            out.write(line.toString());
            out.flush(); // the next upload pass must see it
        } catch (IOException e) {
            reportError("cannot write logcopy.log", e, ErrorManager.WRITE_FAILURE);
        }
    }

    @Override
    public void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            reportError("cannot flush logcopy.log", e, ErrorManager.FLUSH_FAILURE);
        }
    }

    @Override
    public synchronized void close() {
        Logger.getLogger("").removeHandler(this);
        try {
            out.close();
        } catch (IOException e) {
            reportError("cannot close logcopy.log", e, ErrorManager.CLOSE_FAILURE);
        }
    }
}
