package org.carla.leaderboard.podruntime.role;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.carla.leaderboard.domain.track.LeaderboardVersion;

/**
 * The arguments of {@code leaderboard_evaluator.py} as its Leaderboard version's argparse declares them
 * (carla-simulator/leaderboard, branches {@code leaderboard-1.0} and {@code leaderboard-2.0}):
 * <ul>
 * <li>both: {@code --port}, {@code --agent}, {@code --agent-config}, {@code --track}, {@code --routes},
 * {@code --routes-subset} (the pair's share, by route id), {@code --repetitions}, {@code --checkpoint},
 * {@code --record}, and {@code --resume} only when resuming: it is {@code type=bool}, so any non-empty text, even
 * "False", would mean yes;</li>
 * <li>1.0: {@code --trafficManagerPort} and the required {@code --scenarios};</li>
 * <li>2.0: {@code --traffic-manager-port} and {@code --debug-checkpoint}.</li>
 * </ul>
 * Every value is given as {@code --name=value}, so none is ever read as an option. The traffic manager listens on
 * CARLA's port + 10.
 */
public final class EvaluatorArguments {

    private EvaluatorArguments() {
    }

    public static List<String> of(EvaluatorInputs inputs, int carlaPort, boolean resume, Path checkpoint,
            Path debugCheckpoint) {
        return of(inputs, inputs.share().subset(), inputs.repetitions(), carlaPort, resume, checkpoint, debugCheckpoint);
    }

    /** A claim of the route ledger: its one route, once, never resumed (each claim has its own checkpoint). */
    public static List<String> ofClaim(EvaluatorInputs inputs, String routeId, int carlaPort, Path checkpoint,
            Path debugCheckpoint) {
        return of(inputs, routeId, 1, carlaPort, false, checkpoint, debugCheckpoint);
    }

    private static List<String> of(EvaluatorInputs inputs, String subset, int repetitions, int carlaPort,
            boolean resume, Path checkpoint, Path debugCheckpoint) {
        boolean one = inputs.version() == LeaderboardVersion.V1_0;
        List<String> args = new ArrayList<>();
        args.add("--port=" + carlaPort);
        args.add((one ? "--trafficManagerPort=" : "--traffic-manager-port=") + (carlaPort + 10));
        args.add("--agent=" + inputs.agent());
        args.add("--agent-config=" + inputs.agentConfig());
        args.add("--track=" + inputs.track());
        args.add("--routes=" + inputs.routes());
        inputs.scenarios().ifPresent(scenarios -> args.add("--scenarios=" + scenarios));
        args.add("--routes-subset=" + subset);
        args.add("--repetitions=" + repetitions);
        if (resume) {
            args.add("--resume=1");
        }
        args.add("--checkpoint=" + checkpoint);
        args.add("--record=" + inputs.record());
        if (!one) {
            args.add("--debug-checkpoint=" + debugCheckpoint);
        }
        return args;
    }
}
