package org.carla.leaderboard.podruntime.logcopy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import org.jboss.logging.Logger;

/**
 * The state of one dependency (S3, SQS) across passes: says in the log when it became unavailable and when it came
 * back, once per outage rather than once per failed attempt.
 */
final class Outage {

    private static final Logger LOG = Logger.getLogger(Outage.class);

    private final String dependency;
    private final Clock clock;
    private Instant since;
    private int failures;

    Outage(String dependency, Clock clock) {
        this.dependency = dependency;
        this.clock = clock;
    }

    void failed(Exception cause) {
        failures++;
        if (since == null) {
            since = clock.instant();
            LOG.warnf("logcopy: %s unavailable (%s); retrying with back-off, nothing is lost meanwhile", dependency,
                    cause.getMessage());
        } else {
            LOG.debugf("logcopy: %s still unavailable: %s", dependency, cause.getMessage());
        }
    }

    void succeeded() {
        if (since != null) {
            LOG.infof("logcopy: %s available again after %d s and %d failed attempts", dependency,
                    Duration.between(since, clock.instant()).toSeconds(), failures);
            since = null;
            failures = 0;
        }
    }

    boolean ongoing() {
        return since != null;
    }

    /** Consecutive failed attempts of the ongoing outage. */
    int failures() {
        return failures;
    }
}
