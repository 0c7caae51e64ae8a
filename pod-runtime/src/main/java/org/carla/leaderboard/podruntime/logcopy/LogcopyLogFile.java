package org.carla.leaderboard.podruntime.logcopy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import org.jboss.logmanager.ExtLogRecord;

/**
 * logcopy's own log, {@code logcopy/logcopy.log}, as its text in memory: the lines of pod-runtime's loggers at INFO and
 * above (a handler on the root logger), after what an earlier logcopy of the submission wrote. logcopy writes and
 * uploads it from this text, never from the volume, where a participant's code could replace it. A failed
 * submission's stderr shows its tail to the participant, so it holds no bucket, queue URL, account id or exception
 * text: those go only to the console, through {@link #OPERATOR} (and exceptions are named by their class here).
 */
final class LogcopyLogFile extends Handler implements AutoCloseable {

    /** Log here what only operators may read (the console: Kubernetes' container log). */
    static final String OPERATOR = "org.carla.leaderboard.podruntime.logcopy.operator";
    /** The log kept; beyond it the oldest half is dropped (a line per change: a run writes a few KiB). */
    static final int MAX_CHARS = 1024 * 1024;
    private static final String OURS = "org.carla.leaderboard.podruntime.";

    private final StringBuilder text;
    private long version;

    private LogcopyLogFile(String earlier) {
        this.text = new StringBuilder(earlier.length() > MAX_CHARS ? earlier.substring(earlier.length() - MAX_CHARS / 2)
                : earlier);
        setLevel(Level.INFO);
    }

    /** Adds the handler to the root logger, after {@code earlier} (the log a restarted logcopy continues). */
    static LogcopyLogFile attach(String earlier) {
        var handler = new LogcopyLogFile(earlier);
        Logger.getLogger("").addHandler(handler);
        return handler;
    }

    @Override
    public synchronized void publish(LogRecord record) {
        String logger = record.getLoggerName();
        if (!isLoggable(record) || logger == null || !logger.startsWith(OURS) || logger.startsWith(OPERATOR)) {
            return;
        }
        String message = record instanceof ExtLogRecord ext ? ext.getFormattedMessage()
                : new SimpleFormatter().formatMessage(record);
        text.append(Instant.ofEpochMilli(record.getMillis())).append(' ').append(record.getLevel().getName())
                .append(' ').append(message);
        if (record.getThrown() != null) {
            text.append(" (").append(record.getThrown().getClass().getSimpleName()).append(')');
        }
        text.append('\n');
        if (text.length() > MAX_CHARS) {
            text.delete(0, text.length() - MAX_CHARS / 2);
        }
        version++;
    }

    /** The log's bytes now. */
    synchronized byte[] bytes() {
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Changes with every line added. */
    synchronized long version() {
        return version;
    }

    @Override
    public void flush() {
        // in memory: logcopy writes and uploads it every pass
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
    }
}
