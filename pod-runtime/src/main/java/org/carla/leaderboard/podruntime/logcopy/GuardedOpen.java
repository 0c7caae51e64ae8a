package org.carla.leaderboard.podruntime.logcopy;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens (and writes in) what a participant could have swapped for a named pipe. Java cannot open with {@code O_NONBLOCK}, and opening a
 * pipe for reading waits for a writer: logcopy checks a name's type before opening it, but the name can change in
 * between. So every open of a participant's name runs on a guard thread; after {@link #DEADLINE} logcopy gives up on it
 * ({@link BlockedOpenException}), and whatever the open returns later is closed. At most {@link #MAX_BLOCKED} guard
 * threads may hang at once; beyond, opens are refused at once, so a hostile folder costs a bounded number of threads.
 */
final class GuardedOpen implements AutoCloseable {

    /** A local file opens in microseconds; two seconds is a name that is not a file. */
    static final Duration DEADLINE = Duration.ofSeconds(2);
    static final int MAX_BLOCKED = 8;

    private final Duration deadline;
    private final AtomicInteger blocked = new AtomicInteger();
    private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "logcopy-open");
        thread.setDaemon(true); // a thread stuck in open(2) must not keep the JVM alive
        return thread;
    });

    GuardedOpen() {
        this(DEADLINE);
    }

    GuardedOpen(Duration deadline) {
        this.deadline = deadline;
    }

    @FunctionalInterface
    interface Opener<T extends Closeable> {
        T open() throws IOException;
    }

    /**
     * An open that did not return in time (a pipe swapped in), or refused because too many did not. The thread that
     * hangs holds the folder stream it opened from: that stream must not be closed (closing waits for it).
     */
    static final class BlockedOpenException extends IOException {
        BlockedOpenException(String message) {
            super(message);
        }
    }

    /** What {@code opener} opens, within the deadline. */
    <T extends Closeable> T open(String what, Opener<T> opener) throws IOException {
        if (blocked.get() >= MAX_BLOCKED) {
            throw new BlockedOpenException(what + ": not opened, " + MAX_BLOCKED + " earlier opens are still blocked");
        }
        CompletableFuture<T> opening = CompletableFuture.supplyAsync(() -> {
            try {
                return opener.open();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, threads);
        try {
            return opening.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            blocked.incrementAndGet();
            opening.whenComplete((opened, failure) -> {
                blocked.decrementAndGet();
                closeQuietly(opened);
            });
            throw new BlockedOpenException(what + ": opening it did not return within " + deadline.toMillis()
                    + " ms (a named pipe?)");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException completion ? completion.getCause()
                    : e.getCause();
            if (cause instanceof UncheckedIOException unchecked) {
                throw unchecked.getCause();
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(what + ": " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            opening.whenComplete((opened, failure) -> closeQuietly(opened));
            throw new IOException(what + ": interrupted while opening", e);
        }
    }

    /** Runs {@code action} (a write in a participant's folder) within the deadline, as {@link #open} does. */
    void run(String what, Action action) throws IOException {
        open(what, () -> {
            action.run();
            return () -> { };
        });
    }

    @FunctionalInterface
    interface Action {
        void run() throws IOException;
    }

    /** Opens that have not returned yet. */
    int blocked() {
        return blocked.get();
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }

    private static void closeQuietly(Closeable opened) {
        if (opened != null) {
            try {
                opened.close();
            } catch (IOException | RuntimeException e) {
                // late and unwanted: nothing to do
            }
        }
    }
}
