package org.carla.leaderboard.relay.service;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.carla.leaderboard.domain.track.TrackSpec;

/**
 * A finished qualifier submission's verdict: it qualifies when every threshold metric is exceeded. The text opens the
 * participant's stdout, with each metric against its threshold.
 */
record QualifierVerdict(boolean passed, String text) {

    static QualifierVerdict judge(TrackSpec track, Map<String, Double> metrics) {
        boolean passed = !track.thresholds().isEmpty();
        var table = new StringBuilder();
        table.append(String.format(Locale.ROOT, "%-28s %12s %12s%n", "Metric", "Result", "Threshold"));
        for (var threshold : new TreeMap<>(track.thresholds()).entrySet()) {
            Double value = metrics.get(threshold.getKey());
            boolean exceeded = value != null && value > threshold.getValue();
            passed &= exceeded;
            table.append(String.format(Locale.ROOT, "%-28s %12s %12s  %s%n", threshold.getKey(),
                    value == null ? "-" : format(value), format(threshold.getValue()),
                    exceeded ? "passed" : "not passed"));
        }
        String opening = passed
                ? "Congratulations! Your submission passed the " + track.track() + " qualifier: your team can now"
                        + " submit to the " + track.qualifiesFor() + " track."
                : "Your submission did not pass the " + track.track() + " qualifier. To submit to the "
                        + track.qualifiesFor() + " track, every metric must exceed its threshold.";
        return new QualifierVerdict(passed, opening + "\n\n" + table + "\n");
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }
}
