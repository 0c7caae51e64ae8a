package org.carla.leaderboard.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Measured values of one figure (milliseconds unless said otherwise), and their summary. */
final class Samples {

    private final List<Double> values = new ArrayList<>();

    synchronized void add(double value) {
        values.add(value);
    }

    synchronized int size() {
        return values.size();
    }

    synchronized double mean() {
        return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    /** Nearest-rank percentile: with fewer than 100 samples p99 is the maximum. */
    synchronized double percentile(double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        var sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    synchronized double max() {
        return percentile(100);
    }

    synchronized double min() {
        return percentile(0);
    }

    /** {@code p50 12 ms, p99 40 ms (n=20)}. */
    String summary(String unit) {
        if (size() == 0) {
            return "no sample";
        }
        return "p50 " + fmt(percentile(50)) + unit + ", p99 " + fmt(percentile(99)) + unit + " (n=" + size() + ")";
    }

    static String fmt(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (Math.abs(value) >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
