package org.carla.leaderboard.podruntime.logcopy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import org.jboss.logging.Logger;

/**
 * The state of one dependency (S3, SQS) across passes: says in the log when it became unavailable and when it came
 * back, once per outage rather than once per failed attempt; the failure's own text only on the console.
 */
final class Outage {

    private static final Logger LOG = Logger.getLogger(Outage.class);
    private static final Logger OPERATOR = Logger.getLogger(LogcopyLogFile.OPERATOR);

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
            // The cause's text can name the bucket, the queue's URL and the account: the console only.
            LOG.warnf("logcopy: %s unavailable (%s); retrying with back-off, nothing is lost meanwhile", dependency,
                    kind(cause));
            OPERATOR.warnf("logcopy: %s unavailable: %s", dependency, cause.toString());
        } else {
            OPERATOR.debugf("logcopy: %s still unavailable: %s", dependency, cause.toString());
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

    /** The failure without its text: the exception's class and, from a service, its HTTP status. */
    static String kind(Exception cause) {
        if (cause instanceof software.amazon.awssdk.awscore.exception.AwsServiceException service) {
            return cause.getClass().getSimpleName() + ", HTTP " + service.statusCode();
        }
        return cause.getClass().getSimpleName();
    }

    boolean ongoing() {
        return since != null;
    }

    /** Consecutive failed attempts of the ongoing outage. */
    int failures() {
        return failures;
    }
}
