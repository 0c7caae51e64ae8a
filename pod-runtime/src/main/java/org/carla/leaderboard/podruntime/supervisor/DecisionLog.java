package org.carla.leaderboard.podruntime.supervisor;

import org.jboss.logging.Logger;

/** One line per decision of a supervisor, always with the container (role and pair), the attempt and the reason. */
public final class DecisionLog {

    private static final Logger LOG = Logger.getLogger("pod-runtime");

    private final String container;
    private final int attempt;

    public DecisionLog(String container, int attempt) {
        this.container = container;
        this.attempt = attempt;
    }

    public void decide(String decision, String reason) {
        LOG.infof("%s attempt %d: %s; reason: %s", container, attempt, decision, reason);
    }

    public void warn(String decision, String reason) {
        LOG.warnf("%s attempt %d: %s; reason: %s", container, attempt, decision, reason);
    }

    public int attempt() {
        return attempt;
    }
}
