package org.carla.leaderboard.podruntime.cli;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;

import org.jboss.logging.Logger;

import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
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

    /**
     * Writes the container's start file ({@code simulator-3.start1}: K, its starts before this one), as soon as the
     * container knows its pair and before it reads the rest of its configuration, so that a start that fails on it
     * counts too: logcopy ends the pod once the pair containers' restarts reach {@code RESTART_LIMIT}. A start file
     * that cannot be written is logged and the role goes on: failing for it would restart the container in a loop no
     * start file counts, while its own work may still end the run.
     */
    void started(Role role, int pair) {
        String file = StatusFiles.start(role, pair, StatusFiles.startCount(status.present(), role, pair));
        try {
            status.post(file);
            LOG.infof("%s: wrote %s (its restarts count against the pod's RESTART_LIMIT)", role.container(pair), file);
        } catch (UncheckedIOException e) {
            LOG.errorf("%s: cannot write its start file %s (%s); this start is not counted against the pod's"
                    + " RESTART_LIMIT, and the role goes on", role.container(pair), file, e.getCause());
        }
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
