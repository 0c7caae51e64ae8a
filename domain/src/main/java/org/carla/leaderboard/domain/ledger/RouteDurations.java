package org.carla.leaderboard.domain.ledger;

/**
 * A track's record of one route's durations ({@link RouteLedgerTable#trackPartition}): how many DONE attempts of
 * earlier submissions it has seen ({@code n}) and their mean wall time in seconds ({@code mean_s}). logcopy adds each
 * attempt it files DONE.
 */
public record RouteDurations(long n, double meanSeconds) {

    public static final RouteDurations NONE = new RouteDurations(0, 0);

    public RouteDurations {
        if (n < 0 || !(meanSeconds >= 0) || Double.isInfinite(meanSeconds)) {
            throw new IllegalArgumentException("a route's durations are a count and a mean from 0, were " + n + " and "
                    + meanSeconds);
        }
    }

    /** This record with one more DONE attempt of {@code seconds}: the running mean. */
    public RouteDurations plus(double seconds) {
        if (!(seconds >= 0) || Double.isInfinite(seconds)) {
            throw new IllegalArgumentException("an attempt's duration is a number of seconds from 0, was " + seconds);
        }
        return new RouteDurations(n + 1, meanSeconds + (seconds - meanSeconds) / (n + 1));
    }
}
