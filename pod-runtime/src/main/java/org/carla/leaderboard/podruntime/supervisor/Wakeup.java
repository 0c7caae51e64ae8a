package org.carla.leaderboard.podruntime.supervisor;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the supervision loop sleeps on: a status-file event, a child's exit or a stop request rings it, so the loop
 * reacts at once instead of at its next poll.
 */
public final class Wakeup {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition rung = lock.newCondition();
    private long generation;

    public void ring() {
        lock.lock();
        try {
            generation++;
            rung.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Sleeps until the next ring or for at most {@code max}; a ring since the previous call returns at once. */
    public void await(Duration max, long[] seen) throws InterruptedException {
        lock.lock();
        try {
            long nanos = max.toNanos();
            while (generation == seen[0] && nanos > 0) {
                nanos = rung.awaitNanos(nanos);
            }
            seen[0] = generation;
        } finally {
            lock.unlock();
        }
    }

    /** A cursor for {@link #await}: each waiter keeps its own. */
    public long[] cursor() {
        lock.lock();
        try {
            return new long[] { generation };
        } finally {
            lock.unlock();
        }
    }
}
