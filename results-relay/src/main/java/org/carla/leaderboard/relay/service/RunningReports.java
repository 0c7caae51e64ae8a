package org.carla.leaderboard.relay.service;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.relay.client.EvalAiClient;
import org.carla.leaderboard.relay.client.Evaluation;
import org.carla.leaderboard.relay.service.StatusReads.PendingPartial;
import org.carla.leaderboard.relay.service.StatusReads.PendingStart;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

/**
 * A running run: its pod started, and logcopy reports progress. The record's conditional write comes first, so nothing
 * is sent to EvalAI for a run that is over or superseded; an update that would take EvalAI out of {@code cancelled}
 * (EvalAI takes a running or partial update over a cancel) follows right after a call that shows the run not cancelled
 * (the run's next list, which it waits for, or a status read of its own when the run is due to be asked about,
 * {@link StatusReads}), so a cancel there is passed to the pod rather than overwritten. A progress report without
 * news (same results digest) only moves the record's progress.
 */
@ApplicationScoped
class RunningReports {

    private static final Logger LOG = Logger.getLogger(RunningReports.class);
    /** How long after a list the list alone guards an update (no status read of its own). */
    static final Duration FRESH = Duration.ofSeconds(2);

    private final SubmissionRecords records;
    private final EvaluationFiles evaluationFiles;
    private final CancelRequests cancels;
    private final EvalAiClient evalAi;
    private final RelayMetrics metrics;
    private final StatusReads reads;

    RunningReports(SubmissionRecords records, EvaluationFiles evaluationFiles, CancelRequests cancels, EvalAiClient evalAi,
            RelayMetrics metrics, StatusReads reads) {
        this.records = records;
        this.evaluationFiles = evaluationFiles;
        this.cancels = cancels;
        this.evalAi = evalAi;
        this.metrics = metrics;
        this.reads = reads;
    }

    /**
     * The run's pod runs: RUNNING from its start, then {@code running} on EvalAI with the Job's name, right after the
     * run's next list (which shows it not cancelled: EvalAI takes {@code running} over a cancel) or, when the run is due
     * to be asked about, after a read of its status.
     */
    void jobStarted(SubmissionRecord record, JobStarted event, Destination destination) {
        var submission = event.submission();
        if (record.isTerminal()) {
            drop(event.type(), RelayMetrics.FINAL, submission, "run " + record.run() + " is already " + record.status());
            return;
        }
        if (!record.is(SubmissionStatus.RUNNING)) {
            if (!records.markRunning(destination.table(), record, event.jobName(), event.podStartedAt(),
                    Instant.now())) {
                drop(event.type(), RelayMetrics.FINAL, submission, "run " + record.run() + " moved on meanwhile");
                return;
            }
        } else if (record.lastResultsDigest() != null) {
            // A repeat after partial results were sent: "running" would take EvalAI back from partially_evaluated.
            drop(event.type(), RelayMetrics.REPEAT, submission, "partial results were sent already");
            return;
        }
        if (record.cancelRequested()) {
            return;
        }
        Instant now = Instant.now();
        reads.seen(record, now);
        if (reads.waits(new PendingStart(event, destination), now)) {
            LOG.debugf("submission %d: run %d running in Job %s; EvalAI told at the run's next list",
                    submission.submissionPk(), event.run(), event.jobName());
            return;
        }
        if (cancelledOnEvalAi(submission, record, destination)) {
            return;
        }
        markRunning(event);
    }

    /**
     * A {@code running} update that waited for its run's list, relayed right after the list showed the run not
     * cancelled ({@code listed}: when it was sent), on the record read again: only while the run still runs with no
     * cancel recorded and no partial results sent (which say more than {@code running}); EvalAI's status read first when
     * more than {@link #FRESH} passed since the list.
     */
    void relayStart(PendingStart start, Instant listed) {
        var event = start.event();
        var destination = start.destination();
        try {
            var record = records.find(destination.table(), event.submission().teamId(),
                    Long.toString(event.submission().submissionPk()))
                    .filter(found -> found.run() == event.run() && found.is(SubmissionStatus.RUNNING)
                            && !found.cancelRequested() && found.lastResultsDigest() == null);
            if (record.isEmpty() || Instant.now().isAfter(listed.plus(FRESH))
                    && cancelledOnEvalAi(event.submission(), record.get(), destination)) {
                return;
            }
            markRunning(event);
        } catch (RuntimeException e) {
            reads.again(start);
            LOG.warnf("submission %d: running not relayed yet: %s", event.submission().submissionPk(), e.getMessage());
        }
    }

    private void markRunning(JobStarted event) {
        evalAi.markRunning(event.submission(), event.jobName());
        metrics.relayed(event.type());
        LOG.infof("submission %d: run %d running in Job %s since %s", event.submission().submissionPk(), event.run(),
                event.jobName(), event.podStartedAt());
    }

    /**
     * A believed report of the record's running run. With news (another results digest, or other routes done, than the
     * run's last report), a partial update to EvalAI built from the merged checkpoint under the submission's own prefix
     * (audited, {@link ResultsAudit}), then the record's progress; without (a heartbeat, a repeat), only the record's progress.
     */
    void progress(SubmissionRecord record, SubmissionIdentity submission, Progress report, Destination destination) {
        String id = record.submissionId();
        String location = SubmissionLayout.location(destination.bucket(), id);
        boolean news = !Objects.equals(report.resultsDigest(), record.lastResultsDigest())
                || report.routesDone() != record.routesDone().orElse(-1);
        if (!news || record.cancelRequested()) {
            if (!records.recordProgress(destination.table(), record, report, location, false)) {
                drop(report.type(), RelayMetrics.NOT_RUNNING, submission, "run " + record.run() + " moved on");
                return;
            }
            if (record.cancelRequested()) {
                // The pod is being stopped: a partial update would take EvalAI out of cancelled.
                cancels.request(record, destination);
            }
            metrics.unchanged(report.type());
            LOG.debugf("submission %s: run %d, nothing to relay (%d/%d routes%s)", id, record.run(),
                    report.routesDone(), report.routesTotal(), report.heartbeat() ? ", heartbeat" : "");
            return;
        }
        if (reads.waits(new PendingPartial(submission, report, destination), Instant.now())) {
            // Asked about less than a cancel-check interval ago: the run's next list guards the update (StatusReads).
            if (!records.recordProgress(destination.table(), record, report, location, false)) {
                reads.take(submission.submissionPk());
                drop(report.type(), RelayMetrics.NOT_RUNNING, submission, "run " + record.run() + " moved on");
            }
            return;
        }
        // Relayed now: an older report waiting for the run's list is superseded by this one.
        reads.take(submission.submissionPk());
        relay(record, submission, report, destination, true);
    }

    /**
     * A partial update that waited for its run's list, made ready before the list is sent: the record read again (the
     * run still runs, with no cancel recorded; its news may be other routes done alone, which the record already holds:
     * it waited because it was news) and the files read. The list and the update it guards then follow each other as
     * closely as a status read and its update: the window in which a cancel on EvalAI lands between them and is
     * overwritten (EvalAI has no conditional update) is the list's answer and one record read, not the files' reads.
     * Empty when the run moved on, or when a read failed (the update then waits again for the run's next list).
     */
    Optional<ReadyPartial> prepareWaiting(PendingPartial partial) {
        var report = partial.report();
        var destination = partial.destination();
        try {
            return current(partial).map(record -> new ReadyPartial(partial, record.lastResultsDigest(),
                    evaluation(record, destination)));
        } catch (RuntimeException e) {
            reads.again(partial);
            LOG.warnf("submission %d: partial results not relayed yet: %s", report.submission().submissionPk(),
                    e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * A ready update relayed right after the list that showed its run not cancelled ({@code listed}: when that list was
     * sent), on the record read again: only if the run still runs, has no cancel recorded and no other update was
     * relayed meanwhile. When more than {@link #FRESH} passed since the list was sent (a slow answer, other updates of
     * the challenge before it), EvalAI's status is read first, as for an update that did not wait.
     */
    void relayReady(ReadyPartial ready, Instant listed) {
        var partial = ready.partial();
        try {
            current(partial).filter(record -> Objects.equals(record.lastResultsDigest(), ready.lastDigest()))
                    .ifPresent(record -> send(record, partial.submission(), partial.report(), partial.destination(),
                            ready.evaluation(), Instant.now().isAfter(listed.plus(FRESH))));
        } catch (RuntimeException e) {
            // Waits again for the run's next list; a later report replaces it.
            reads.again(partial);
            LOG.warnf("submission %d: partial results not relayed yet: %s", partial.submission().submissionPk(),
                    e.getMessage());
        }
    }

    /** The record of a waiting update's run, if that run still runs with no cancel recorded. */
    private Optional<SubmissionRecord> current(PendingPartial partial) {
        var report = partial.report();
        return records.find(partial.destination().table(), report.submission().teamId(),
                Long.toString(report.submission().submissionPk()))
                .filter(record -> record.run() == report.run() && record.is(SubmissionStatus.RUNNING)
                        && !record.cancelRequested());
    }

    /** The news relayed: the files read, EvalAI's status read first when {@code guard}, the update, the record. */
    private void relay(SubmissionRecord record, SubmissionIdentity submission, Progress report, Destination destination,
            boolean guard) {
        // The files first: the guard and the update then follow each other closely, which narrows the window in which
        // a participant's cancel lands between them and is overwritten by the partial update.
        send(record, submission, report, destination, evaluation(record, destination), guard);
    }

    /** What EvalAI is to show of the run now: the merged checkpoint under the submission's own prefix, audited. */
    private Evaluation evaluation(SubmissionRecord record, Destination destination) {
        var shown = evaluationFiles.mergedResults(destination.bucket(), record.submissionId(), record.expectedRoutes())
                .audit().map(ResultsAudit::shown).orElseGet(CheckpointFile::empty);
        return evaluationFiles.evaluation(shown, "");
    }

    private void send(SubmissionRecord record, SubmissionIdentity submission, Progress report, Destination destination,
            Evaluation evaluation, boolean guard) {
        String id = record.submissionId();
        String location = SubmissionLayout.location(destination.bucket(), id);
        if (guard && cancelledOnEvalAi(submission, record, destination)) {
            records.recordProgress(destination.table(), record, report, location, false);
            return;
        }
        evalAi.sendPartial(submission, evaluation);
        // After the update: a crash in between sends the same news again rather than never.
        records.recordProgress(destination.table(), record, report, location, true);
        metrics.relayed(report.type());
        LOG.debugf("submission %s: run %d, partial results sent (%d/%d routes)", id, record.run(),
                report.routesDone(), report.routesTotal());
    }

    /**
     * EvalAI is where a participant cancels: read before an update that would overwrite it. The read stands in for the
     * cancel check's next list of this run ({@link StatusReads}).
     */
    private boolean cancelledOnEvalAi(SubmissionIdentity submission, SubmissionRecord record,
            Destination destination) {
        Instant sent = Instant.now();
        EvalAiStatus shown = evalAi.status(submission);
        reads.asked(submission.submissionPk(), sent);
        if (shown != EvalAiStatus.CANCELLED) {
            return false;
        }
        cancels.request(record, destination);
        return true;
    }

    /**
     * A waiting update made ready for its run's list: the results digest last relayed when it was made ready (another
     * update relayed meanwhile supersedes it) and the evaluation to send.
     */
    record ReadyPartial(PendingPartial partial, String lastDigest, Evaluation evaluation) {
    }

    private void drop(String type, String reason, SubmissionIdentity submission, String why) {
        LOG.infof("submission %d: dropping %s (%s): %s", submission.submissionPk(), type, reason, why);
        metrics.dropped(type, reason);
    }
}
