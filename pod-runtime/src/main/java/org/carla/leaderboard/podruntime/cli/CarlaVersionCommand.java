package org.carla.leaderboard.podruntime.cli;

import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_ROOT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_SERVER_VERSION_FILE;
import static org.carla.leaderboard.domain.pod.PodEnvironment.VERSIONS_DIR;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.podruntime.ExitCodes;
import org.carla.leaderboard.podruntime.init.SoftwareVersions;
import org.jboss.logging.Logger;

import picocli.CommandLine.Command;

/**
 * {@code pod-runtime carla-version}: the {@code carla-version} init container, in the simulator's image before any
 * participant's code runs. Reads the CARLA server's version ({@code $CARLA_ROOT/VERSION}, {@code /home/carla} by
 * default) and leaves it in the versions volume ({@code $VERSIONS_DIR}) for init, which records it with the run's other
 * versions. A version it cannot read stays unknown: never a failure of the run.
 */
@Command(mixinStandardHelpOptions = true, name = "carla-version",
        description = "Leaves the CARLA server's version ($CARLA_ROOT/VERSION) in $VERSIONS_DIR for init.")
public class CarlaVersionCommand implements Callable<Integer> {

    private static final Logger LOG = Logger.getLogger(CarlaVersionCommand.class);

    @Override
    public Integer call() {
        Map<String, String> env = System.getenv();
        Optional<String> versions = PodEnvironment.value(env, VERSIONS_DIR);
        if (versions.isEmpty()) {
            LOG.errorf("carla-version: bad configuration, exit %d: %s is not set", ExitCodes.BAD_CONFIGURATION,
                    VERSIONS_DIR);
            return ExitCodes.BAD_CONFIGURATION;
        }
        Path root = Path.of(PodEnvironment.value(env, CARLA_ROOT).orElse("/home/carla"));
        Optional<String> version = SoftwareVersions.carlaServer(root);
        if (version.isEmpty()) {
            LOG.warnf("carla-version: %s holds no readable VERSION; the CARLA server's version stays unknown", root);
            return ExitCodes.DONE;
        }
        Path file = Path.of(versions.get()).resolve(CARLA_SERVER_VERSION_FILE);
        Path written = file.resolveSibling("." + CARLA_SERVER_VERSION_FILE + ".part");
        try {
            Files.writeString(written, version.get() + "\n", StandardCharsets.UTF_8);
            Files.move(written, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            LOG.warnf("carla-version: cannot leave %s in %s (%s); the CARLA server's version stays unknown",
                    version.get(), versions.get(), e.getMessage());
            return ExitCodes.DONE;
        }
        LOG.infof("carla-version: the CARLA server in %s is %s", root, version.get());
        return ExitCodes.DONE;
    }
}
