package org.carla.leaderboard.benchmarks;

import java.util.ArrayList;
import java.util.List;

/** The benchmarks' result table, printed as Markdown (it goes into the README as it is). */
final class Table {

    /** One figure: what, measured, the baseline of the same run, the target, whether it is met, the load. */
    record Row(String id, String figure, String measured, String baseline, String target, String met, String load) {
    }

    private final List<Row> rows = new ArrayList<>();

    synchronized void add(String id, String figure, String measured, String baseline, String target, Boolean met) {
        rows.add(new Row(id, figure, measured, baseline, target, met == null ? "-" : met ? "yes" : "**no**",
                Machine.loadText()));
        System.out.println("[" + id + "] " + figure + ": " + measured + (baseline.isEmpty() ? "" : " | baseline " + baseline)
                + " | target " + target + " | load " + Machine.loadText());
    }

    synchronized String markdown() {
        var out = new StringBuilder();
        out.append("| # | Figure | Measured | Baseline (same run) | Target | Met | Load (1 min) |\n");
        out.append("|---|---|---|---|---|---|---|\n");
        for (Row row : rows) {
            out.append("| ").append(row.id()).append(" | ").append(row.figure()).append(" | ").append(row.measured())
                    .append(" | ").append(row.baseline()).append(" | ").append(row.target()).append(" | ")
                    .append(row.met()).append(" | ").append(row.load()).append(" |\n");
        }
        return out.toString();
    }
}
