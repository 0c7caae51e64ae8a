package org.carla.leaderboard.domain.ledger;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;

import org.carla.leaderboard.domain.results.RouteRecordCheck;

/**
 * One entry of a run's route ledger: a route of the routes file (its {@code id} attribute, never an index) and a
 * repetition (from 0). Its text, the table's sort key, is {@code <route_id>#<repetition>} ({@code 27#0}).
 *
 * <p>The Leaderboard reads route ids as integers ({@code --routes-subset} sorts them with {@code int()}, the merge orders
 * records by the number after {@code RouteScenario_}), so a route id here is 1 to {@value #MAX_ROUTE_ID_DIGITS}
 * decimal digits, kept as the routes file writes it. Entry order is the merged results' order: route number, then
 * repetition.
 */
public record EntryKey(String routeId, int repetition) implements Comparable<EntryKey> {

    public static final int MAX_ROUTE_ID_DIGITS = 9;
    /** How the Leaderboard names a route's scenario: {@code RouteScenario_<id>}, its records {@code ..._rep<k>}. */
    public static final String SCENARIO_PREFIX = "RouteScenario_";

    private static final char SEPARATOR = '#';
    private static final Comparator<EntryKey> ORDER = Comparator.comparingInt(EntryKey::routeNumber)
            .thenComparingInt(EntryKey::repetition).thenComparing(EntryKey::routeId);

    public EntryKey {
        if (!isRouteId(routeId)) {
            throw new IllegalArgumentException("a route id is 1 to " + MAX_ROUTE_ID_DIGITS + " decimal digits, was "
                    + RouteRecordCheck.printable(routeId));
        }
        if (repetition < 0) {
            throw new IllegalArgumentException("a repetition is 0 or more, was " + repetition);
        }
    }

    /**
     * The entries of a run: every route (in the routes file's order) × repetitions 0 .. {@code repetitions} − 1.
     * @throws IllegalArgumentException when a route id is not one or appears twice (the Leaderboard refuses both)
     */
    public static List<EntryKey> of(List<String> routeIds, int repetitions) {
        if (repetitions < 1) {
            throw new IllegalArgumentException("a run drives every route at least once, repetitions was " + repetitions);
        }
        var keys = new ArrayList<EntryKey>(routeIds.size() * repetitions);
        if (new HashSet<>(routeIds).size() != routeIds.size()) {
            throw new IllegalArgumentException("a route id appears more than once in the routes file");
        }
        for (String routeId : routeIds) {
            for (int repetition = 0; repetition < repetitions; repetition++) {
                keys.add(new EntryKey(routeId, repetition));
            }
        }
        return List.copyOf(keys);
    }

    /** Reads a sort key ({@code 27#0}). @throws IllegalArgumentException naming what is wrong */
    public static EntryKey parse(String text) {
        int separator = text == null ? -1 : text.indexOf(SEPARATOR);
        if (separator < 0 || !isRouteId(text.substring(0, separator))
                || !isDigits(text.substring(separator + 1), MAX_ROUTE_ID_DIGITS)) {
            throw new IllegalArgumentException("a ledger entry reads <route_id>#<repetition>, each 1 to "
                    + MAX_ROUTE_ID_DIGITS + " decimal digits, was " + RouteRecordCheck.printable(text));
        }
        return new EntryKey(text.substring(0, separator), Integer.parseInt(text.substring(separator + 1)));
    }

    /** The table's sort key. */
    public String text() {
        return routeId + SEPARATOR + repetition;
    }

    public int routeNumber() {
        return Integer.parseInt(routeId);
    }

    /** The route id of this entry's record in the merged results: {@code RouteScenario_27_rep1}. */
    public String recordRouteId() {
        return SCENARIO_PREFIX + routeId + "_rep" + repetition;
    }

    /** The route id the evaluator gives the one record of a claim ({@code --repetitions=1}): always {@code _rep0}. */
    public String claimRecordRouteId() {
        return SCENARIO_PREFIX + routeId + "_rep0";
    }

    @Override
    public int compareTo(EntryKey other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return text();
    }

    private static boolean isRouteId(String text) {
        return isDigits(text, MAX_ROUTE_ID_DIGITS);
    }

    private static boolean isDigits(String text, int most) {
        if (text == null || text.isEmpty() || text.length() > most) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
