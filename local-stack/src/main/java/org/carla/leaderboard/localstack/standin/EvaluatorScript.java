package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.track.LeaderboardVersion;

/**
 * The local Leaderboard images' {@code leaderboard/leaderboard_evaluator.py}: not Python, a file that names the
 * carla-simulator/leaderboard branch the image stands for. The evaluator stand-in is run with it as its first argument,
 * as Python runs the real script ({@code EVALUATOR_COMMAND} = {@code java ... EvaluatorStandIn
 * ${LEADERBOARD_ROOT}/leaderboard/leaderboard_evaluator.py}), and parses its arguments as that branch does: which
 * evaluator an agent runs is decided by the Leaderboard volume init filled, never by what pod-runtime passes.
 */
public final class EvaluatorScript {

    /** Where it is in a Leaderboard root (the repository's layout). */
    public static final String PATH = "leaderboard/leaderboard_evaluator.py";
    private static final Pattern BRANCH = Pattern.compile("(?m)^# branch: (\\S+)$");

    private EvaluatorScript() {
    }

    /** Writes the script of {@code version} under {@code leaderboardRoot}; returns its path. */
    public static Path write(Path leaderboardRoot, LeaderboardVersion version) throws IOException {
        Path script = leaderboardRoot.resolve(PATH);
        Files.createDirectories(script.getParent());
        return Files.writeString(script, "# The local stack's stand-in for carla-simulator/leaderboard's"
                + " leaderboard_evaluator.py: local-stack's\n# EvaluatorStandIn runs with this file as its first"
                + " argument and plays this branch's evaluator.\n# branch: " + version.branch() + "\n");
    }

    /**
     * The branch a script names.
     *
     * @throws IllegalArgumentException when it names none this stand-in plays
     */
    static LeaderboardVersion read(Path script) throws IOException {
        Matcher branch = BRANCH.matcher(Files.readString(script));
        if (branch.find()) {
            for (LeaderboardVersion version : LeaderboardVersion.values()) {
                if (version.branch().equals(branch.group(1))) {
                    return version;
                }
            }
        }
        throw new IllegalArgumentException(script + " names no Leaderboard branch the evaluator stand-in plays"
                + " (a line '# branch: leaderboard-2.0')");
    }
}
