package org.carla.leaderboard.podruntime.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;

import org.carla.leaderboard.podruntime.role.AgentRole;
import org.carla.leaderboard.podruntime.role.CarlaProbe;
import org.carla.leaderboard.podruntime.role.CommandTemplate;
import org.carla.leaderboard.podruntime.role.EvaluatorArguments;
import org.carla.leaderboard.podruntime.role.PairSettings;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.jboss.logging.Logger;

import picocli.CommandLine.Command;

/** {@code pod-runtime agent}: the Leaderboard evaluator of worker pair i under the container protocol. */
@Command(mixinStandardHelpOptions = true, name = "agent", description = "Runs the Leaderboard evaluator of worker pair WORKER_ID on its route subset.")
public class AgentCommand implements Callable<Integer> {

    static final String DEFAULT_COMMAND = "python3 ${LEADERBOARD_ROOT}/leaderboard/leaderboard_evaluator.py";
    static final String RESULTS_FILE = "agent_results.json";

    private static final Logger LOG = Logger.getLogger(AgentCommand.class);

    @Override
    public Integer call() throws Exception {
        Map<String, String> env = System.getenv();
        PairSettings settings;
        Function<Boolean, ChildSpec> evaluator;
        Path checkpoint;
        try {
            settings = PairSettings.from(env);
            Path agentDir = RoleContext.folder(settings.logsDir().resolve("agent").resolve("agent" + settings.pair()));
            checkpoint = agentDir.resolve(RESULTS_FILE);
            Path debugCheckpoint = agentDir.resolve("live_results.txt");
            List<String> command = CommandTemplate.expand(env.getOrDefault("EVALUATOR_COMMAND", DEFAULT_COMMAND),
                    Map.of("${LEADERBOARD_ROOT}", env.getOrDefault("LEADERBOARD_ROOT", "/workspace/leaderboard")));
            EvaluatorArguments.of(settings, env, false, checkpoint, debugCheckpoint); // fails early on a missing variable
            evaluator = resume -> {
                List<String> argv = new ArrayList<>(command);
                argv.addAll(EvaluatorArguments.of(settings, env, resume, checkpoint, debugCheckpoint));
                return new ChildSpec("evaluator", argv, Optional.empty(), Map.of(),
                        Optional.of(agentDir.resolve("leaderboard.log")));
            };
        } catch (IllegalArgumentException e) {
            LOG.errorf("agent: bad configuration, exit 2: %s", e.getMessage());
            return 2;
        }
        try (RoleContext context = new RoleContext(settings.statusDir())) {
            return new AgentRole(settings, evaluator, PairSettings.flag(env, "RESUME"), checkpoint,
                    CarlaProbe.tcp(settings.carlaHost(), settings.carlaPort()), context.status, context.status,
                    context.runner, context.termination).run();
        }
    }
}
