package org.carla.leaderboard.podruntime.supervisor;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The real process of a container: its argv (never through a shell), working directory, extra environment, and the
 * log file its output is copied to besides the console.
 */
public record ChildSpec(String name, List<String> argv, Optional<Path> workingDirectory, Map<String, String> environment,
        Optional<Path> logFile) {

    public ChildSpec {
        if (argv.isEmpty()) {
            throw new IllegalArgumentException(name + ": empty command");
        }
        argv = List.copyOf(argv);
        environment = Map.copyOf(environment);
    }
}
