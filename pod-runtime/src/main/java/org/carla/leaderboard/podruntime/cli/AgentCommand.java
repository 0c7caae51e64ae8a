package org.carla.leaderboard.podruntime.cli;

import static org.carla.leaderboard.domain.pod.PodEnvironment.EVALUATOR_COMMAND;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEADERBOARD_ROOT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEDGER_TABLE;
import static org.carla.leaderboard.domain.pod.PodEnvironment.RESUME;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.ledger.ClaimAssignment;
import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.podruntime.ExitCodes;
import org.carla.leaderboard.podruntime.role.AgentRole;
import org.carla.leaderboard.podruntime.role.CarlaProbe;
import org.carla.leaderboard.podruntime.role.ClaimedRoutes;
import org.carla.leaderboard.podruntime.role.ClaimingAgentRole;
import org.carla.leaderboard.podruntime.role.CommandTemplate;
import org.carla.leaderboard.podruntime.role.EvaluatorArguments;
import org.carla.leaderboard.podruntime.role.EvaluatorInputs;
import org.carla.leaderboard.podruntime.role.PairSettings;
import org.carla.leaderboard.podruntime.role.PairSupervisor;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.volume.SharedFiles;
import org.jboss.logging.Logger;

import picocli.CommandLine.Command;

/**
 * {@code pod-runtime agent}: the Leaderboard evaluator of worker pair i under the container protocol, on the pair's
 * static share of the routes, or, in a run with a route ledger ({@code LEDGER_TABLE}), on each route logcopy claims for
 * the pair.
 */
@Command(mixinStandardHelpOptions = true, name = "agent", description = "Runs the Leaderboard evaluator of worker pair WORKER_ID on its share of the routes.")
public class AgentCommand implements Callable<Integer> {

    static final String DEFAULT_COMMAND = "python3 ${LEADERBOARD_ROOT}/leaderboard/leaderboard_evaluator.py";

    private static final Logger LOG = Logger.getLogger(AgentCommand.class);

    @Override
    public Integer call() throws Exception {
        Map<String, String> env = System.getenv();
        PairSettings settings;
        try {
            settings = PairSettings.from(env);
        } catch (IllegalArgumentException e) {
            return badConfiguration(e);
        }
        try (RoleContext context = new RoleContext(PodEnvironment.statusDir(env))) {
            context.started(Role.AGENT, settings.pair());
            return PodEnvironment.value(env, LEDGER_TABLE).isPresent() ? claiming(env, settings, context)
                    : staticShare(env, settings, context);
        }
    }

    /** A run without a route ledger: the evaluator on the pair's static share of the routes ({@link AgentRole}). */
    private Integer staticShare(Map<String, String> env, PairSettings settings, RoleContext context)
            throws Exception {
        Function<Boolean, ChildSpec> evaluator;
        Path checkpoint;
        try {
            Path logs = PodEnvironment.logsDir(env);
            Path agentDir = SharedFiles.openFolder(logs.resolve(LogsLayout.agentDir(settings.pair())));
            checkpoint = logs.resolve(LogsLayout.agentCheckpoint(settings.pair()));
            Path debugCheckpoint = agentDir.resolve("live_results.txt");
            Path log = logs.resolve(LogsLayout.agentLog(settings.pair()));
            List<String> command = command(env);
            EvaluatorInputs inputs = EvaluatorInputs.from(env, settings.pair());
            LOG.infof("agent-%d: Leaderboard %s evaluator, routes %s (%d of the routes file %s, pair %d)",
                    settings.pair(), inputs.version(), inputs.share().subset(), inputs.share().routes().size(),
                    inputs.routes(), settings.pair());
            evaluator = resume -> {
                List<String> argv = new ArrayList<>(command);
                argv.addAll(EvaluatorArguments.of(inputs, settings.carlaPort(), resume, checkpoint, debugCheckpoint));
                return new ChildSpec("evaluator", argv, Optional.empty(), Map.of(), Optional.of(log));
            };
        } catch (IllegalArgumentException e) {
            return badConfiguration(e);
        }
        return new PairSupervisor(Role.AGENT, settings, context.parts).run(new AgentRole(settings, evaluator,
                PodEnvironment.flag(env, RESUME), checkpoint, CarlaProbe.tcp(settings.carlaHost(),
                        settings.carlaPort())));
    }

    /** A run with a route ledger: the evaluator once per claim logcopy gives the pair ({@link ClaimingAgentRole}). */
    private Integer claiming(Map<String, String> env, PairSettings settings, RoleContext context) throws Exception {
        BiFunction<ClaimAssignment, Path, ChildSpec> evaluator;
        ClaimedRoutes claims;
        try {
            Path logs = PodEnvironment.logsDir(env);
            Path agentDir = SharedFiles.openFolder(logs.resolve(LogsLayout.agentDir(settings.pair())));
            Path debugCheckpoint = agentDir.resolve("live_results.txt");
            Path log = logs.resolve(LogsLayout.agentLog(settings.pair()));
            List<String> command = command(env);
            EvaluatorInputs inputs = EvaluatorInputs.forClaims(env);
            LOG.infof("agent-%d: Leaderboard %s evaluator, one claimed route at a time of the routes file %s",
                    settings.pair(), inputs.version(), inputs.routes());
            claims = new ClaimedRoutes(logs, settings.pair());
            evaluator = (claim, checkpoint) -> {
                List<String> argv = new ArrayList<>(command);
                argv.addAll(EvaluatorArguments.ofClaim(inputs, claim.entry().orElseThrow().routeId(),
                        settings.carlaPort(), checkpoint, debugCheckpoint));
                return new ChildSpec("evaluator", argv, Optional.empty(), Map.of(), Optional.of(log));
            };
        } catch (IllegalArgumentException | IOException e) {
            return badConfiguration(e);
        }
        return new PairSupervisor(Role.AGENT, settings, context.parts).run(new ClaimingAgentRole(settings, claims,
                evaluator, CarlaProbe.tcp(settings.carlaHost(), settings.carlaPort())));
    }

    private static int badConfiguration(Exception e) {
        LOG.errorf("agent: bad configuration, exit %d: %s", ExitCodes.BAD_CONFIGURATION, e.getMessage());
        return ExitCodes.BAD_CONFIGURATION;
    }

    private static List<String> command(Map<String, String> env) {
        return CommandTemplate.expand(PodEnvironment.value(env, EVALUATOR_COMMAND).orElse(DEFAULT_COMMAND),
                Map.of("${LEADERBOARD_ROOT}", PodEnvironment.value(env, LEADERBOARD_ROOT)
                        .orElse(PodEnvironment.LEADERBOARD_DIR)));
    }
}
