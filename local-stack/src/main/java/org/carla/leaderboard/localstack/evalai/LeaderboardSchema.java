package org.carla.leaderboard.localstack.evalai;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A challenge phase's leaderboard as EvalAI configures it: the dataset splits of the phase (by codename) and, for each,
 * the leaderboard schema's {@code labels} (the metric names a result may carry).
 */
public record LeaderboardSchema(Map<String, List<String>> labelsBySplit) {

    /** The CARLA Leaderboard's 15 accuracies, in the order of docs/results.md ("The EvalAI files"). */
    public static final List<String> CARLA_LABELS = List.of("Driving score", "Route completion", "Infraction penalty",
            "Collisions pedestrians", "Collisions vehicles", "Collisions layout", "Red light infractions",
            "Stop sign infractions", "Off-road infractions", "Route deviations", "Route timeouts", "Agent blocked",
            "Yield emergency vehicle infractions", "Scenario timeouts", "Min speed infractions");

    public LeaderboardSchema {
        var copy = new LinkedHashMap<String, List<String>>();
        labelsBySplit.forEach((split, labels) -> copy.put(split, List.copyOf(labels)));
        labelsBySplit = java.util.Collections.unmodifiableMap(copy);
    }

    /** The CARLA Leaderboard phase: one split, {@code leaderboard}, with {@link #CARLA_LABELS}. */
    public static LeaderboardSchema carlaLeaderboard() {
        return new LeaderboardSchema(Map.of("leaderboard", CARLA_LABELS));
    }
}
