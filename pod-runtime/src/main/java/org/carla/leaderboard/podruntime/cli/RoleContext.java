package org.carla.leaderboard.podruntime.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.jboss.logging.Logger;

import org.carla.leaderboard.podruntime.supervisor.ProcessGroup;
import org.carla.leaderboard.podruntime.supervisor.ProcessRunner;
import org.carla.leaderboard.podruntime.supervisor.StatusDirectory;
import org.carla.leaderboard.podruntime.supervisor.TerminationSignal;
import org.carla.leaderboard.podruntime.supervisor.Wakeup;

/** The real parts of a pair role: the status folder, the process runner and the signal handling, sharing one wake-up. */
final class RoleContext implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RoleContext.class);

    final Wakeup wakeup = new Wakeup();
    final StatusDirectory status;
    final ProcessRunner runner;
    final TerminationSignal termination;

    RoleContext(Path statusDir) {
        this.status = new StatusDirectory(statusDir, wakeup);
        this.runner = new ProcessRunner(wakeup, System.out);
        this.termination = TerminationSignal.install(wakeup);
    }

    static Path folder(Path path) throws IOException {
        return Files.createDirectories(path);
    }

    @Override
    public void close() {
        status.close();
        long zombies = ProcessGroup.adoptedZombies();
        if (zombies > 0) {
            LOG.warnf("%d orphaned zombie process(es) adopted by pod-runtime (PID 1 of the container); they end with it",
                    zombies);
        }
    }
}
