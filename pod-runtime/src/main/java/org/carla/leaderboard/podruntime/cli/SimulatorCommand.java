package org.carla.leaderboard.podruntime.cli;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.carla.leaderboard.podruntime.role.CommandTemplate;
import org.carla.leaderboard.podruntime.role.PairSettings;
import org.carla.leaderboard.podruntime.role.SimulatorRole;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.jboss.logging.Logger;

import picocli.CommandLine.Command;

/** {@code pod-runtime simulator}: the CARLA server of worker pair i under the container protocol. */
@Command(mixinStandardHelpOptions = true, name = "simulator", description = "Runs the CARLA server of worker pair WORKER_ID and follows the container protocol.")
public class SimulatorCommand implements Callable<Integer> {

    static final String DEFAULT_COMMAND = "./CarlaUE4.sh -{renderer} -carla-rpc-port={port} -RenderOffScreen -nosound "
            + "-ini:[/Script/Engine.RendererSettings]:r.GraphicsAdapter={gpu}";

    private static final Logger LOG = Logger.getLogger(SimulatorCommand.class);

    @Override
    public Integer call() throws Exception {
        Map<String, String> env = System.getenv();
        PairSettings settings;
        ChildSpec carla;
        try {
            settings = PairSettings.from(env);
            Path logs = RoleContext.folder(settings.logsDir().resolve("simulator"));
            carla = new ChildSpec("carla", CommandTemplate.expand(env.getOrDefault("CARLA_SERVER_COMMAND", DEFAULT_COMMAND),
                    Map.of("{port}", Integer.toString(settings.carlaPort()),
                            "{renderer}", env.getOrDefault("CARLA_RENDERER", "vulkan"),
                            "{gpu}", env.getOrDefault("NVIDIA_VISIBLE_DEVICES", "0"))),
                    Optional.of(Path.of(env.getOrDefault("CARLA_ROOT", "/home/carla"))), Map.of(),
                    Optional.of(logs.resolve("simulator" + settings.pair() + ".log")));
        } catch (IllegalArgumentException e) {
            LOG.errorf("simulator: bad configuration, exit 2: %s", e.getMessage());
            return 2;
        }
        try (RoleContext context = new RoleContext(settings.statusDir())) {
            return new SimulatorRole(settings, carla, context.status, context.status, context.runner,
                    context.termination).run();
        }
    }
}
