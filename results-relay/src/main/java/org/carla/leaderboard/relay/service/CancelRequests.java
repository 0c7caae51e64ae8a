package org.carla.leaderboard.relay.service;

import java.time.Clock;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.layout.SubmissionFiles;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

/**
 * A cancel seen on EvalAI, passed on: the record first ({@code cancel_requested_run}, conditional on the run, so only
 * the relay's own record can make a run CANCELLED), then the control object {@code <id>/control/cancel}, which logcopy
 * watches (it stops a running pod) and job-launcher reads from the record (it deletes a Job whose pod has not
 * started). A run already cancel-requested has its control object written again (it may have been lost with a crash
 * between the two writes).
 */
@ApplicationScoped
class CancelRequests {

    private static final Logger LOG = Logger.getLogger(CancelRequests.class);

    private final SubmissionRecords records;
    private final SubmissionFiles files;
    private final RelayMetrics metrics;
    private final Clock clock;

    CancelRequests(SubmissionRecords records, SubmissionFiles files, RelayMetrics metrics, Clock clock) {
        this.records = records;
        this.files = files;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * A run EvalAI lists cancelled: passed on on its record read again (the index it was found in lags), while that
     * run is current and not over; a failure is logged, and the run's next list tries again.
     */
    void passOn(IndexedRuns.Found run) {
        var seen = run.record();
        try {
            records.find(run.destination().table(), seen.teamId(), seen.submissionId())
                    .filter(record -> record.run() == seen.run() && !record.isTerminal())
                    .ifPresent(record -> request(record, run.destination()));
        } catch (RuntimeException e) {
            LOG.warnf("submission %s cancelled on EvalAI, not passed on yet: %s", seen.submissionId(), e.getMessage());
        }
    }

    /** False when the run was no longer current or already over: nothing was written. */
    boolean request(SubmissionRecord record, Destination destination) {
        if (!record.cancelRequested()) {
            if (!records.recordCancelRequested(destination.table(), record)) {
                LOG.infof("submission %s: cancelled on EvalAI, but run %d is no longer current or already over",
                        record.submissionId(), record.run());
                return false;
            }
            metrics.cancelRequested();
            LOG.infof("submission %s: run %d cancelled on EvalAI; cancel recorded and control object written",
                    record.submissionId(), record.run());
        }
        files.requestCancel(destination.bucket(), record.submissionId(), record.run(), clock.instant());
        return true;
    }
}
