package org.carla.leaderboard.domain.results;

import java.util.LinkedHashMap;
import java.util.Optional;

/**
 * EvalAI's {@code stdout.txt} for a merged checkpoint, line for line as the Leaderboard-cloud
 * {@code generate_stdout.py} writes it (ratios rounded with Python's {@code round(x, 4)}, numbers printed as Python
 * prints them).
 */
final class Stdout {

    private static final int ROUND_RATIO_DIGITS = 4;
    /** The simulation's fixed frame rate: a ratio of 1 is 20 FPS. */
    private static final int SIMULATION_FPS = 20;

    private Stdout() {
    }

    static String of(Optional<CheckpointFile> merged) {
        if (merged.isEmpty() || merged.get().checkpoint().progress().size() != 2) {
            return "Initializing the submission, no data available yet.\n"
                    + "More information will be found here once the submission starts running.\n";
        }
        CheckpointFile file = merged.get();
        Checkpoint checkpoint = file.checkpoint();
        GlobalRecord global = checkpoint.globalRecord();
        var out = new StringBuilder(4096);
        out.append(global != null ? "Here is a summary of the submission's results\n\n"
                : "Here is a summary of the submission's current results\n\n");
        out.append("General information:\n");

        out.append("- Sensors:\n");
        var sensors = new LinkedHashMap<String, Integer>();
        for (String sensor : file.sensors()) {
            sensors.merge(Sensors.readableName(sensor), 1, Integer::sum);
        }
        sensors.forEach((name, count) -> out.append("  - ").append(count).append(' ').append(name).append('\n'));

        int completed = checkpoint.progress().get(0);
        int total = checkpoint.progress().get(1);
        if (completed == total) {
            out.append("- All ").append(total).append(" route have been completed\n");
        } else {
            out.append("- Completed ").append(completed).append(" out of the ").append(total).append(" routes\n");
        }

        double totalGame = 0;
        double totalSystem = 0;
        var routes = new StringBuilder();
        for (RouteRecord record : checkpoint.records()) {
            double game = record.meta().durationGame();
            double system = record.meta().durationSystem();
            // Python's ratio is the integer 0 here, which it prints as "0", not "0.0".
            String ratio = system == 0 ? "0" : PythonFloat.str(PythonFloat.round(game / system, ROUND_RATIO_DIGITS));
            String fps = system == 0 ? "0"
                    : PythonFloat.str(PythonFloat.round(SIMULATION_FPS * (game / system), ROUND_RATIO_DIGITS));
            routes.append('\n')
                    .append("- Index: ").append(record.index()).append('\n')
                    .append("  - Route ID: ").append(record.routeId()).append('\n')
                    .append("  - Status: ").append(record.status()).append('\n')
                    .append("  - Ratio: ").append(ratio).append("x\n")
                    .append("  - FPS: ").append(fps).append('\n');
            totalGame += game;
            totalSystem += system;
        }
        double ratio = PythonFloat.round(totalSystem == 0 ? 0.0 : totalGame / totalSystem, ROUND_RATIO_DIGITS);
        double fps = PythonFloat.round(SIMULATION_FPS * ratio, ROUND_RATIO_DIGITS);
        out.append("- Submission ratio of ").append(PythonFloat.str(ratio)).append("x\n");
        out.append("- Submission FPS of ").append(PythonFloat.str(fps)).append('\n');

        if (global != null) {
            out.append("- Results:\n");
            for (Metric metric : Metric.values()) {
                out.append("  - ").append(metric.accuracy()).append(": ").append(PythonFloat.str(metric.of(global)))
                        .append('\n');
            }
        }
        out.append('\n');
        if (!checkpoint.records().isEmpty()) {
            out.append("Glossary of each route:\n").append(routes);
        }
        return out.toString();
    }
}
