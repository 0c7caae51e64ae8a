package org.carla.leaderboard.podruntime.role;

import static org.carla.leaderboard.domain.pod.PodEnvironment.CHALLENGE_TRACK_CODENAME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.RECORD_PATH;
import static org.carla.leaderboard.domain.pod.PodEnvironment.REPETITIONS;
import static org.carla.leaderboard.domain.pod.PodEnvironment.ROUTES;
import static org.carla.leaderboard.domain.pod.PodEnvironment.ROUTES_SUBSET;
import static org.carla.leaderboard.domain.pod.PodEnvironment.TEAM_AGENT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.TEAM_CONFIG;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.pod.PodEnvironment;

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
        args.add("--agent=" + PodEnvironment.required(env, TEAM_AGENT));
        args.add("--agent-config=" + PodEnvironment.value(env, TEAM_CONFIG).orElse(""));
        args.add("--track=" + PodEnvironment.value(env, CHALLENGE_TRACK_CODENAME).orElse("SENSORS"));
        args.add("--routes=" + PodEnvironment.required(env, ROUTES));
        args.add("--routes-subset=" + PodEnvironment.value(env, ROUTES_SUBSET).orElse(""));
        args.add("--repetitions=" + PodEnvironment.integer(env, REPETITIONS).orElse(1));
        if (resume) {
            args.add("--resume=1");
        }
        args.add("--checkpoint=" + checkpoint);
        args.add("--record=" + PodEnvironment.value(env, RECORD_PATH).orElse(""));
        args.add("--debug-checkpoint=" + debugCheckpoint);
        return args;
    }
}
