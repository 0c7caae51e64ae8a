package org.carla.leaderboard.launcher.job;

import java.util.ArrayList;
import java.util.List;

/**
 * The routes one worker pair drives, inclusive, as the Leaderboard's {@code --routes-subset} takes them ({@code 5-9}).
 */
public record RouteSubset(int first, int last) {

    public RouteSubset {
        if (first < 0 || last < first) {
            throw new IllegalArgumentException("route subset " + first + "-" + last + " is empty");
        }
    }

    /**
     * Splits {@code routes} over {@code pairs} the way the Leaderboard does (step = routes / pairs; pair i from 0 gets
     * ceil(i·step) … ceil((i+1)·step) − 1), in exact integer arithmetic so no rounding error moves a boundary. Never
     * more subsets than routes: every pair gets at least one route.
     */
    public static List<RouteSubset> split(int routes, int pairs) {
        if (routes < 1 || pairs < 1) {
            throw new IllegalArgumentException("need at least one route and one pair, got " + routes + " and " + pairs);
        }
        int used = Math.min(routes, pairs);
        var subsets = new ArrayList<RouteSubset>(used);
        for (int i = 0; i < used; i++) {
            subsets.add(new RouteSubset(ceilDiv((long) i * routes, used), ceilDiv((long) (i + 1) * routes, used) - 1));
        }
        return List.copyOf(subsets);
    }

    public int size() {
        return last - first + 1;
    }

    /** The form of the {@code ROUTES_SUBSET} variable. */
    @Override
    public String toString() {
        return first + "-" + last;
    }

    private static int ceilDiv(long dividend, int divisor) {
        return (int) ((dividend + divisor - 1) / divisor);
    }
}
