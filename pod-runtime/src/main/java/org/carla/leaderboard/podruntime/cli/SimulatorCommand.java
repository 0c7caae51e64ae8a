package org.carla.leaderboard.podruntime.cli;

import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_RENDERER;
import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_ROOT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_SERVER_COMMAND;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.podruntime.ExitCodes;
import org.carla.leaderboard.podruntime.role.CommandTemplate;
import org.carla.leaderboard.podruntime.role.PairSettings;
import org.carla.leaderboard.podruntime.role.PairSupervisor;
import org.carla.leaderboard.podruntime.role.SimulatorRole;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.volume.SharedFiles;
import org.jboss.logging.Logger;

import picocli.CommandLine.Command;

/** {@code pod-runtime simulator}: the CARLA server of worker pair i under the container protocol. */
@Command(mixinStandardHelpOptions = true, name = "simulator", description = "Runs the CARLA server of worker pair WORKER_ID and follows the container protocol.")
public class SimulatorCommand implements Callable<Integer> {

    static final String DEFAULT_COMMAND = "./CarlaUE4.sh -{renderer} -carla-rpc-port={port} -RenderOffScreen -nosound "
            + "-ini:[/Script/Engine.RendererSettings]:r.GraphicsAdapter={gpu}";

    /**
     * The device plugin gives the container exactly its GPU, so the one adapter it sees is 0. NVIDIA_VISIBLE_DEVICES
     * is the runtime's there (a device UUID by default), never an adapter index.
     */
    static final String GRAPHICS_ADAPTER = "0";

    private static final Logger LOG = Logger.getLogger(SimulatorCommand.class);

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
            context.started(Role.SIMULATOR, settings.pair());
            ChildSpec carla;
            try {
                Path log = PodEnvironment.logsDir(env).resolve(LogsLayout.simulatorLog(settings.pair()));
                SharedFiles.openFolder(log.getParent());
                carla = new ChildSpec("carla", CommandTemplate.expand(
                        PodEnvironment.value(env, CARLA_SERVER_COMMAND).orElse(DEFAULT_COMMAND),
                        Map.of("{port}", Integer.toString(settings.carlaPort()),
                                "{renderer}", PodEnvironment.value(env, CARLA_RENDERER).orElse("vulkan"),
                                "{gpu}", GRAPHICS_ADAPTER)),
                        Optional.of(Path.of(PodEnvironment.value(env, CARLA_ROOT).orElse("/home/carla"))), Map.of(),
                        Optional.of(log));
            } catch (IllegalArgumentException e) {
                return badConfiguration(e);
            }
            return new PairSupervisor(Role.SIMULATOR, settings, context.parts).run(new SimulatorRole(settings, carla));
        }
    }

    private static int badConfiguration(IllegalArgumentException e) {
        LOG.errorf("simulator: bad configuration, exit %d: %s", ExitCodes.BAD_CONFIGURATION, e.getMessage());
        return ExitCodes.BAD_CONFIGURATION;
    }
}
