package org.carla.leaderboard.benchmarks;

import java.time.Instant;

/** Wall-clock time in epoch microseconds: the unit the stamp wrapper writes ($EPOCHREALTIME). */
final class Clock {

    private Clock() {
    }

    static long micros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
