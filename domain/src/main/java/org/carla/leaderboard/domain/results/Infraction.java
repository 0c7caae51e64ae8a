package org.carla.leaderboard.domain.results;

/** The infraction keys of route and global records, in the Leaderboard 2.0's order. */
public enum Infraction {
    COLLISIONS_LAYOUT("collisions_layout"),
    COLLISIONS_PEDESTRIAN("collisions_pedestrian"),
    COLLISIONS_VEHICLE("collisions_vehicle"),
    RED_LIGHT("red_light"),
    STOP_INFRACTION("stop_infraction"),
    /** Counted in kilometres off the route lanes rather than in occurrences per kilometre. */
    OUTSIDE_ROUTE_LANES("outside_route_lanes"),
    MIN_SPEED_INFRACTIONS("min_speed_infractions"),
    YIELD_EMERGENCY_VEHICLE_INFRACTIONS("yield_emergency_vehicle_infractions"),
    SCENARIO_TIMEOUTS("scenario_timeouts"),
    ROUTE_DEV("route_dev"),
    VEHICLE_BLOCKED("vehicle_blocked"),
    ROUTE_TIMEOUT("route_timeout");

    private final String key;

    Infraction(String key) {
        this.key = key;
    }

    /** The key in the checkpoint's {@code infractions} objects. */
    public String key() {
        return key;
    }
}
