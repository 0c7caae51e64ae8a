package org.carla.leaderboard.domain.route;

import java.util.List;

/**
 * The routes file split over a run's worker pairs once, before they start (the seeds' layout): with step = routes ÷
 * pairs, pair i (from 1) drives the routes at positions ceil((i − 1)·step) to ceil(i·step) − 1 of the file, as
 * leaderboard-cloud's {@code preparallel} lambda computes them, in exact integer arithmetic so no rounding moves a
 * boundary. The positions are the file's; what the evaluator is given is the ids there ({@link RoutesFile#subset}), so a
 * file whose ids are not 0…n−1 is driven whole.
 */
public final class StaticSplit {

    /**
     * What one pair drives.
     *
     * @param routes its routes, in file order
     * @param subset the {@code --routes-subset} that selects exactly them
     */
    public record Share(List<Route> routes, String subset) {
    }

    private StaticSplit() {
    }

    /**
     * Pair {@code pair} (from 1) of {@code pairs}.
     *
     * @throws IllegalArgumentException when the pair gets no route (more pairs than routes) or is not one of them
     */
    public static Share share(RoutesFile file, int pair, int pairs) {
        if (pairs < 1 || pair < 1 || pair > pairs) {
            throw new IllegalArgumentException("pair " + pair + " of " + pairs + " is not a worker pair");
        }
        if (pairs > file.size()) {
            throw new IllegalArgumentException(pairs + " worker pairs for " + file.size() + " routes: pair " + pair
                    + " would drive none");
        }
        int from = ceilDiv((long) (pair - 1) * file.size(), pairs);
        int to = ceilDiv((long) pair * file.size(), pairs);
        return new Share(file.routes().subList(from, to), file.subset(from, to));
    }

    private static int ceilDiv(long dividend, int divisor) {
        return (int) ((dividend + divisor - 1) / divisor);
    }
}
