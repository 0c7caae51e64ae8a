package org.carla.leaderboard.podruntime.cli;

import java.nio.file.Path;
import java.time.Clock;

import org.jboss.logging.Logger;

import org.carla.leaderboard.podruntime.role.PairSupervisor;
import org.carla.leaderboard.podruntime.supervisor.MonotonicClock;
import org.carla.leaderboard.podruntime.supervisor.ProcessGroup;
import org.carla.leaderboard.podruntime.supervisor.ProcessRunner;
import org.carla.leaderboard.podruntime.supervisor.StatusDirectory;
import org.carla.leaderboard.podruntime.supervisor.TerminationSignal;
import org.carla.leaderboard.podruntime.supervisor.Wakeup;

/**
 * The real parts of a pair role: the status folder, the process runner and the signal handling, sharing one wake-up,
 * and the supervision's clock.
 */
final class RoleContext implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RoleContext.class);

    private final StatusDirectory status;
    final PairSupervisor.Parts parts;

    RoleContext(Path statusDir) {
        Wakeup wakeup = new Wakeup();
        Clock clock = new MonotonicClock();
        this.status = new StatusDirectory(statusDir, wakeup);
        this.parts = new PairSupervisor.Parts(status, status, new ProcessRunner(wakeup, System.out, clock),
                TerminationSignal.install(wakeup), clock);
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
