package org.carla.leaderboard.domain.results;

import java.util.Comparator;
import java.util.Optional;

/**
 * The route and repetition numbers of a route id ({@code RouteScenario_12_rep0} → 12, 0), read as the Leaderboard
 * reads them: the integer after the first {@code _}, the integer after the last {@code _rep}.
 */
public record RouteId(String prefix, int route, int repetition) implements Comparable<RouteId> {

    private static final Comparator<RouteId> ORDER =
            Comparator.comparingInt(RouteId::route).thenComparingInt(RouteId::repetition);

    /** The route id of this route and repetition, in the form of this one. */
    public String text() {
        return prefix + "_" + route + "_rep" + repetition;
    }

    public RouteId withNumbers(int otherRoute, int otherRepetition) {
        return new RouteId(prefix, otherRoute, otherRepetition);
    }

    public static Optional<RouteId> parse(String routeId) {
        if (routeId == null) {
            return Optional.empty();
        }
        String[] parts = routeId.split("_", -1);
        int rep = routeId.lastIndexOf("_rep");
        if (parts.length < 2 || rep < 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(new RouteId(parts[0], Integer.parseInt(parts[1].strip()),
                    Integer.parseInt(routeId.substring(rep + "_rep".length()).strip())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    @Override
    public int compareTo(RouteId other) {
        return ORDER.compare(this, other);
    }
}
