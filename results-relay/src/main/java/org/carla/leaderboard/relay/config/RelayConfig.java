package org.carla.leaderboard.relay.config;

import java.time.Duration;

import org.carla.leaderboard.messaging.ConsumerConfig;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How the relay consumes its queues, which replica is active, waits for logcopy's last report, reads the merged results
 * and tails failed containers' logs.
 */
@ConfigMapping(prefix = "relay")
public interface RelayConfig {

    /** The consumer of {@code submission-events}: {@code relay.submission-events.*}. */
    ConsumerConfig submissionEvents();

    /** The consumer of {@code progress-reports}: {@code relay.progress-reports.*}. */
    ConsumerConfig progressReports();

    LogTail logTail();

    Results results();

    CancelCheck cancelCheck();

    /** Which replica is active: {@code relay.leadership.*}. */
    Leadership leadership();

    /**
     * How long after its Job ended a run's final report waits for logcopy's last report (its ending and what it could
     * not upload), which travels on another queue.
     */
    @WithDefault("60s")
    Duration lastReportWait();

    /** How often EvalAI is asked about each run (the cancel check's list of its challenge). */
    interface CancelCheck {
        /**
         * The longest a run goes without EvalAI asked about it (plus half the outbox's tick, a sixtieth of it), from
         * its submission to its final status confirmed; how long an update waits at most for its run's list.
         */
        @WithDefault("60s")
        Duration every();
    }

    /**
     * One replica active at a time, coordinated by a {@code coordination.k8s.io/v1} Lease (README, "Active and
     * standby"). The timings are client-go's for Kubernetes' own controllers: a dead holder is replaced within
     * {@code duration} plus a retry period, and a holder cut off stands down {@code duration - renewDeadline} before
     * another may take its Lease.
     */
    interface Leadership {
        /** The Lease's namespace: the relay's own. */
        @WithDefault("leaderboard")
        String namespace();

        @WithDefault("results-relay")
        String name();

        /** How long a Lease not renewed stays held. */
        @WithDefault("15s")
        Duration duration();

        /** How long the holder tries to renew before it stands down. */
        @WithDefault("10s")
        Duration renewDeadline();

        /** How often the holder renews and a standby tries to take the Lease. */
        @WithDefault("2s")
        Duration retryPeriod();
    }

    /** The merged checkpoint the relay reads of each run. */
    interface Results {
        /** Larger merged results are not read (a run's 20 to a few hundred routes take well under 1 MiB). */
        @WithDefault("8388608")
        long maxBytes();
    }

    /** The part of a failed container's log that goes into the participant's stderr. */
    interface LogTail {
        @WithDefault("50")
        int maxLines();

        /** Bytes read from the end of each log. */
        @WithDefault("8192")
        int maxBytes();
    }
}
