package org.carla.leaderboard.podruntime.role;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The arguments of the Leaderboard 2.0 {@code leaderboard_evaluator.py}, as the seeds pass them, from the agent's
 * environment. {@code --resume} is given only when resuming: the evaluator parses it with {@code type=bool}, so any
 * non-empty value, even "False", would mean yes.
 */
public final class EvaluatorArguments {

    private EvaluatorArguments() {
    }

    public static List<String> of(PairSettings settings, Map<String, String> env, boolean resume, Path checkpoint,
            Path debugCheckpoint) {
        List<String> args = new ArrayList<>();
        args.add("--port=" + settings.carlaPort());
        args.add("--traffic-manager-port=" + (settings.carlaPort() + 10));
        args.add("--agent=" + required(env, "TEAM_AGENT"));
        args.add("--agent-config=" + PairSettings.value(env, "TEAM_CONFIG").orElse(""));
        args.add("--track=" + PairSettings.value(env, "CHALLENGE_TRACK_CODENAME").orElse("SENSORS"));
        args.add("--routes=" + required(env, "ROUTES"));
        args.add("--routes-subset=" + PairSettings.value(env, "ROUTES_SUBSET").orElse(""));
        args.add("--repetitions=" + PairSettings.integer(env, "REPETITIONS").orElse(1));
        if (resume) {
            args.add("--resume=1");
        }
        args.add("--checkpoint=" + checkpoint);
        args.add("--record=" + PairSettings.value(env, "RECORD_PATH").orElse(""));
        args.add("--debug-checkpoint=" + debugCheckpoint);
        return args;
    }

    private static String required(Map<String, String> env, String name) {
        return PairSettings.value(env, name).orElseThrow(() -> new IllegalArgumentException(name + " is not set"));
    }
}
