package org.carla.leaderboard.relay.service;

import java.util.concurrent.locks.ReentrantLock;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * One submission handled at a time in this process, whichever queue or check the work comes from (a lock stripe per
 * submission), so two copies of an event, or an event and the cancel check, never race each other's reads and
 * writes; across processes the record's conditional writes decide.
 */
@ApplicationScoped
class SubmissionLocks {

    private static final int STRIPES = 64;

    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    SubmissionLocks() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    void run(long submissionPk, Runnable work) {
        var lock = stripes[Math.floorMod(Long.hashCode(submissionPk), STRIPES)];
        lock.lock();
        try {
            work.run();
        } finally {
            lock.unlock();
        }
    }
}
