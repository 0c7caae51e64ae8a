package org.carla.leaderboard.domain.ledger;

import java.util.Optional;

/**
 * How a run's pairs pick their routes (a track setting, {@code schedule}): {@code dynamic}, any free pair takes the
 * longest expected route left; {@code static}, the seeds' layout, each pair drives its own contiguous share of the
 * routes in entry order ({@link ClaimPolicy}).
 */
public enum Schedule {
    DYNAMIC("dynamic"),
    STATIC("static");

    private final String value;

    Schedule(String value) {
        this.value = value;
    }

    /** The value of the track setting, the run item's {@code schedule} and the pod's {@code SCHEDULE}. */
    public String value() {
        return value;
    }

    public static Optional<Schedule> parse(String value) {
        for (Schedule schedule : values()) {
            if (schedule.value.equals(value)) {
                return Optional.of(schedule);
            }
        }
        return Optional.empty();
    }
}
