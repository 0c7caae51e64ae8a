package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.carla.leaderboard.domain.route.Route;
import org.carla.leaderboard.domain.route.RoutesFile;
import org.carla.leaderboard.domain.track.LeaderboardVersion;

/**
 * The routes an evaluator drives: the routes file ({@code domain}'s {@link RoutesFile}) and {@code --routes-subset} as
 * each branch's {@code route_parser.py} reads it — ids and {@code <first>-<last>} ranges separated by commas
 * ({@code 0-4}, {@code 1,3,5-7}), a range running in file order from its first id to its last, every route selected
 * once, the result in file order; an empty subset is every route. The branches differ in one check: 1.0 looks for a
 * range's end before its start, so a range whose ends are the same id ({@code 3-3}) is refused ("found the end id
 * before the starting one"); 2.0 takes it as that route.
 */
public final class RouteSelection {

    private RouteSelection() {
    }

    /** @throws IllegalArgumentException with the evaluator's message for a subset it refuses */
    public static List<Route> read(Path file, String subset, LeaderboardVersion version) throws IOException {
        List<Route> all = RoutesFile.read(file).routes();
        if (subset == null || subset.isEmpty()) {
            return all;
        }
        Set<String> chosen = subsetIds(all, subset, version);
        return all.stream().filter(route -> chosen.contains(route.id())).toList();
    }

    static Set<String> subsetIds(List<Route> all, String subset, LeaderboardVersion version) {
        Set<String> ids = new LinkedHashSet<>();
        for (String group : subset.replace(" ", "").split(",", -1)) {
            if (group.contains("-")) {
                range(all, group, version, ids);
            } else {
                if (all.stream().noneMatch(route -> route.id().equals(group))) {
                    throw notFound(group);
                }
                add(ids, group);
            }
        }
        return ids;
    }

    private static void range(List<Route> all, String group, LeaderboardVersion version, Set<String> ids) {
        String[] ends = group.split("-", -1);
        if (ends.length != 2) {
            throw new IllegalArgumentException("too many values to unpack (expected 2)");
        }
        boolean started = false;
        boolean ended = false;
        for (Route route : all) {
            boolean endFirst = version == LeaderboardVersion.V1_0 || !route.id().equals(ends[0]);
            if (!started && route.id().equals(ends[1]) && endFirst) {
                throw new IllegalArgumentException("Malformed route subset '" + group
                        + "', found the end id before the starting one");
            }
            started |= route.id().equals(ends[0]);
            if (started && !ended) {
                add(ids, route.id());
                ended = route.id().equals(ends[1]);
            }
        }
        if (!started) {
            throw notFound(ends[0]);
        }
        if (!ended) {
            throw notFound(ends[1]);
        }
    }

    private static IllegalArgumentException notFound(String id) {
        return new IllegalArgumentException("Couldn't find the route with id '" + id + "' inside the given routes file");
    }

    private static void add(Set<String> ids, String id) {
        if (!ids.add(id)) {
            throw new IllegalArgumentException("Found a repeated route with id '" + id + "'");
        }
    }
}
