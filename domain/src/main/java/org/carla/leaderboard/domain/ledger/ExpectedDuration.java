package org.carla.leaderboard.domain.ledger;

/**
 * An entry's {@code expected_s}, what the dynamic schedule orders by: the track's recorded mean for the route when it
 * has seen the route driven ({@link RouteDurations}, {@code n ≥ 1}), else the route's length ÷ a nominal speed, so that
 * with nothing recorded the routes are ordered by length.
 */
public final class ExpectedDuration {

    /** Metres of route per second of wall time when nothing is recorded (a track may set its own). */
    public static final double NOMINAL_SPEED = 1.5;

    private ExpectedDuration() {
    }

    /**
     * @param recorded     the track's record of the route ({@link RouteDurations#NONE} when it has none)
     * @param lengthMetres the route's length from the routes file
     * @param nominalSpeed metres per second of wall time, above zero
     */
    public static double seconds(RouteDurations recorded, double lengthMetres, double nominalSpeed) {
        if (!(nominalSpeed > 0) || Double.isInfinite(nominalSpeed)) {
            throw new IllegalArgumentException("a nominal speed is above zero, was " + nominalSpeed);
        }
        if (!(lengthMetres >= 0) || Double.isInfinite(lengthMetres)) {
            throw new IllegalArgumentException("a route's length is a number of metres from 0, was " + lengthMetres);
        }
        return recorded.n() >= 1 ? recorded.meanSeconds() : lengthMetres / nominalSpeed;
    }
}
