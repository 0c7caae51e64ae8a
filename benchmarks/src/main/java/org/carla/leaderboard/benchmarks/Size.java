package org.carla.leaderboard.benchmarks;

/**
 * How many samples a run takes. {@code SMOKE}: a handful each, to show that every benchmark still measures (the
 * build runs it); {@code QUICK}: a few minutes in all; {@code FULL}: the figures of the README.
 */
enum Size {
    SMOKE, QUICK, FULL;

    int pick(int smoke, int quick, int full) {
        return switch (this) {
            case SMOKE -> smoke;
            case QUICK -> quick;
            case FULL -> full;
        };
    }
}
