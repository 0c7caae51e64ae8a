package org.carla.leaderboard.domain.results;

import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Whether a route record can count at all: the agent container runs a participant's code, which can write any JSON in
 * its checkpoint. A record counts only when its route id reads as {@code <name>_<route>_rep<repetition>} in printable
 * ASCII, its status is printable ASCII, and every number is finite and in its range, so that every number derived from
 * it (the global record, EvalAI's accuracies, DynamoDB's attributes) is finite and JSON-valid. The evaluator's own
 * records always pass.
 */
public final class RouteRecordCheck {

    /** Longest route id or status taken; the Leaderboard's are under 60 characters. */
    public static final int MAX_TEXT = 200;
    /** Longest route taken, in metres (a Leaderboard route is a few kilometres). */
    public static final double MAX_METRES = 1_000_000;
    /** Longest duration taken, in seconds (115 days). */
    public static final double MAX_SECONDS = 10_000_000;

    /** The word of the {@code outside_route_lanes} message that holds the metres: "...for about 52.147 meters...". */
    private static final int OFF_ROAD_METRES_WORD = 8;

    private RouteRecordCheck() {
    }

    /** Why the record cannot count, naming the field and its range; empty when it can. */
    public static Optional<String> problem(RouteRecord record) {
        String id = record.routeId();
        if (id == null || id.isEmpty() || id.length() > MAX_TEXT || !printableAscii(id)) {
            return Optional.of("its route id is not printable ASCII of 1 to " + MAX_TEXT + " characters");
        }
        Optional<RouteId> parsed = RouteId.parse(id);
        if (parsed.isEmpty() || parsed.get().route() < 0 || parsed.get().repetition() < 0) {
            return Optional.of("its route id is not of the form <name>_<route>_rep<repetition>");
        }
        if (record.status().length() > MAX_TEXT || !printableAscii(record.status())) {
            return Optional.of("its status is not printable ASCII of at most " + MAX_TEXT + " characters");
        }
        RouteRecord.Scores scores = record.scores();
        RouteRecord.Meta meta = record.meta();
        return outOfRange("score_route", scores.scoreRoute(), 100)
                .or(() -> outOfRange("score_penalty", scores.scorePenalty(), 1))
                .or(() -> outOfRange("score_composed", scores.scoreComposed(), 100))
                .or(() -> outOfRange("route_length", meta.routeLength(), MAX_METRES))
                .or(() -> outOfRange("duration_game", meta.durationGame(), MAX_SECONDS))
                .or(() -> outOfRange("duration_system", meta.durationSystem(), MAX_SECONDS))
                .or(() -> offRoadProblem(record));
    }

    /**
     * The metres off the route lanes that an {@code outside_route_lanes} message reports (its 9th word, as the
     * Leaderboard reads it); empty when the message does not hold a number of metres from 0 to {@link #MAX_METRES}.
     */
    public static OptionalDouble offRoadMetres(String message) {
        String[] words = message == null ? new String[0] : message.split(" ", -1);
        if (words.length <= OFF_ROAD_METRES_WORD) {
            return OptionalDouble.empty();
        }
        try {
            double metres = Double.parseDouble(words[OFF_ROAD_METRES_WORD]);
            return inRange(metres, MAX_METRES) ? OptionalDouble.of(metres) : OptionalDouble.empty();
        } catch (NumberFormatException e) {
            return OptionalDouble.empty();
        }
    }

    /**
     * The text as it may be shown in a log or a message: control and non-ASCII characters escaped as Java escapes
     * them (a backslash, {@code u}, four hex digits), cut after {@link #MAX_TEXT} characters.
     */
    public static String printable(String text) {
        if (text == null) {
            return "null";
        }
        var out = new StringBuilder(Math.min(text.length(), MAX_TEXT) + 16);
        int i = 0;
        for (; i < text.length() && out.length() < MAX_TEXT; i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return i < text.length() ? out + "..." : out.toString();
    }

    private static Optional<String> offRoadProblem(RouteRecord record) {
        List<String> messages = record.messages(Infraction.OUTSIDE_ROUTE_LANES);
        if (messages.isEmpty() || offRoadMetres(messages.get(0)).isPresent()) {
            return Optional.empty();
        }
        return Optional.of("its first outside_route_lanes message has no distance from 0 to " + (long) MAX_METRES
                + " metres at word " + (OFF_ROAD_METRES_WORD + 1));
    }

    private static Optional<String> outOfRange(String field, double value, double max) {
        return inRange(value, max) ? Optional.empty()
                : Optional.of(field + " is " + PythonFloat.str(value) + ", not a number from 0 to " + PythonFloat.str(max));
    }

    private static boolean inRange(double value, double max) {
        return value >= 0 && value <= max; // false for NaN
    }

    private static boolean printableAscii(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c >= 0x7f) {
                return false;
            }
        }
        return true;
    }
}
