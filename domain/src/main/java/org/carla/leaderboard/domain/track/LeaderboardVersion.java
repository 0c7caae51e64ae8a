package org.carla.leaderboard.domain.track;

import java.util.Arrays;
import java.util.stream.Collectors;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Which Leaderboard a leaderboard's image runs: the branch of carla-simulator/leaderboard its
 * {@code leaderboard_evaluator.py} comes from, which decides the evaluator's arguments.
 */
@RegisterForReflection
public enum LeaderboardVersion {

    /** Branch {@code leaderboard-1.0}: {@code --trafficManagerPort}, a required {@code --scenarios} file. */
    V1_0("1.0", "leaderboard-1.0"),
    /** Branch {@code leaderboard-2.0} (2.1 takes the same arguments): {@code --traffic-manager-port}, {@code --debug-checkpoint}. */
    V2_0("2.0", "leaderboard-2.0");

    private final String text;
    private final String branch;

    LeaderboardVersion(String text, String branch) {
        this.text = text;
        this.branch = branch;
    }

    /** As configured and carried in events: {@code 1.0}, {@code 2.0}. */
    @JsonValue
    public String text() {
        return text;
    }

    /** The carla-simulator/leaderboard branch. */
    public String branch() {
        return branch;
    }

    /** Whether its evaluator needs a scenarios file ({@code --scenarios}, required by the 1.0 argparse). */
    public boolean takesScenarios() {
        return this == V1_0;
    }

    /** @throws IllegalArgumentException naming the versions there are */
    @JsonCreator
    public static LeaderboardVersion parse(String text) {
        return Arrays.stream(values()).filter(version -> version.text.equals(text == null ? null : text.trim()))
                .findFirst().orElseThrow(() -> new IllegalArgumentException("unknown Leaderboard version '" + text
                        + "' (" + Arrays.stream(values()).map(LeaderboardVersion::text)
                                .collect(Collectors.joining(", ")) + ")"));
    }

    @Override
    public String toString() {
        return text;
    }
}
