package org.carla.leaderboard.relay.service;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.layout.SubmissionFiles;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.carla.leaderboard.relay.store.SubmissionRecord;
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

    CancelRequests(SubmissionRecords records, SubmissionFiles files, RelayMetrics metrics) {
        this.records = records;
        this.files = files;
        this.metrics = metrics;
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
        files.requestCancel(destination.bucket(), record.submissionId(), record.run(), Instant.now());
        return true;
    }
}
