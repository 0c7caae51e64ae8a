package org.carla.leaderboard.relay.service;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.carla.leaderboard.relay.client.EvalAi;
import org.carla.leaderboard.relay.client.Evaluation;
import org.carla.leaderboard.relay.store.SubmissionFiles;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

/**
 * A running submission: its Job started, and logcopy reports progress. The record's conditional write comes first,
 * so nothing is sent to EvalAI for a submission that is already final; then EvalAI's status is read, so a
 * cancellation there is passed to the pod rather than overwritten.
 */
@ApplicationScoped
class RunningReports {

    private static final Logger LOG = Logger.getLogger(RunningReports.class);

    private final SubmissionRecords records;
    private final SubmissionFiles files;
    private final EvaluationFiles evaluationFiles;
    private final EvalAi evalAi;
    private final RelayMetrics metrics;

    RunningReports(SubmissionRecords records, SubmissionFiles files, EvaluationFiles evaluationFiles, EvalAi evalAi,
            RelayMetrics metrics) {
        this.records = records;
        this.files = files;
        this.evaluationFiles = evaluationFiles;
        this.evalAi = evalAi;
        this.metrics = metrics;
    }

    void jobStarted(JobStarted event, Destination destination) {
        var submission = event.submission();
        if (!records.recordJobName(destination.table(), submission, event.jobName())) {
            LOG.infof("submission %d: dropping job-started of Job %s, the submission is already final",
                    submission.submissionPk(), event.jobName());
            metrics.dropped(event.type(), "final");
            return;
        }
        if (cancelledOnEvalAi(event, destination)) {
            return;
        }
        evalAi.markRunning(submission, event.jobName());
        metrics.relayed(event.type());
        LOG.infof("submission %d: running in Job %s", submission.submissionPk(), event.jobName());
    }

    void progress(Progress event, Destination destination) {
        var submission = event.submission();
        String id = submission.submissionId();
        if (!records.markRunning(destination.table(), submission, event.at(),
                SubmissionFiles.location(destination.bucket(), id))) {
            LOG.infof("submission %s: dropping progress %d/%d of %s, the submission is already final", id,
                    event.routesDone(), event.routesTotal(), event.at());
            metrics.dropped(event.type(), "final");
            return;
        }
        // The files first: the status read and the update then follow each other closely, which narrows the window
        // in which a participant's cancel lands between them and is overwritten by the partial update.
        var content = evaluationFiles.read(destination.bucket(), event.files());
        if (cancelledOnEvalAi(event, destination)) {
            return;
        }
        evalAi.sendPartial(submission, new Evaluation(content.results(), content.stdout(), "", content.metadata()));
        metrics.relayed(event.type());
        LOG.debugf("submission %s: partial results sent (%d/%d routes)", id, event.routesDone(), event.routesTotal());
    }

    /**
     * EvalAI is where a participant cancels; logcopy learns it from the control object and stops the pod. Read before
     * any update: EvalAI takes a running or partial update over "cancelled", which would hide the cancellation.
     */
    private boolean cancelledOnEvalAi(SubmissionEvent event, Destination destination) {
        var submission = event.submission();
        if (evalAi.status(submission) != EvalAiStatus.CANCELLED) {
            return false;
        }
        String id = submission.submissionId();
        files.requestCancel(destination.bucket(), id, Instant.now());
        metrics.cancelRequested();
        metrics.dropped(event.type(), "cancelled");
        LOG.infof("submission %s: cancelled on EvalAI, wrote s3://%s/%s/%s", id, destination.bucket(), id,
                SubmissionFiles.CANCEL_CONTROL);
        return true;
    }
}
