package org.carla.leaderboard.relay.service;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.relay.client.Evaluation;
import org.carla.leaderboard.relay.service.EvalAiOutbox.Partial;
import org.carla.leaderboard.relay.service.EvalAiOutbox.Start;
import org.carla.leaderboard.relay.service.IndexedRuns.Found;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

/**
 * A running run: its pod started, and logcopy reports progress. What it records, and the updates it composes for
 * {@link EvalAiOutbox}, which sends them after the run's next list. The record's conditional write comes first, so
 * nothing is sent to EvalAI for a run that is over or superseded; each update is checked against the record again
 * right before it goes. A progress report without news (same results digest, same routes done) only moves the
 * record's progress. The record's progress time is the relay's, when it believed the report: a time a pod writes in
 * its report could keep the stuck rule no-progress from ever seeing it silent.
 */
@ApplicationScoped
class RunningReports {

    private static final Logger LOG = Logger.getLogger(RunningReports.class);

    private final SubmissionRecords records;
    private final EvaluationFiles evaluationFiles;
    private final CancelRequests cancels;
    private final RelayMetrics metrics;
    private final Clock clock;

    RunningReports(SubmissionRecords records, EvaluationFiles evaluationFiles, CancelRequests cancels,
            RelayMetrics metrics, Clock clock) {
        this.records = records;
        this.evaluationFiles = evaluationFiles;
        this.cancels = cancels;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * The run's pod runs: RUNNING from its start, then its {@code running} update with the Job's name. A repeat before
     * any partial result gives it again; after one, nothing (it would take EvalAI back from
     * {@code partially_evaluated}).
     */
    Optional<Start> jobStarted(SubmissionRecord record, JobStarted event, Destination destination) {
        var submission = event.submission();
        if (record.isTerminal()) {
            drop(event.type(), RelayMetrics.FINAL, submission, "run " + record.run() + " is already " + record.status());
            return Optional.empty();
        }
        if (!record.is(SubmissionStatus.RUNNING)) {
            if (!records.markRunning(destination.table(), record, event.jobName(), event.podStartedAt(),
                    clock.instant())) {
                drop(event.type(), RelayMetrics.FINAL, submission, "run " + record.run() + " moved on meanwhile");
                return Optional.empty();
            }
        } else if (record.lastResultsDigest() != null) {
            drop(event.type(), RelayMetrics.REPEAT, submission, "partial results were sent already");
            return Optional.empty();
        }
        if (record.cancelRequested()) {
            return Optional.empty();
        }
        LOG.debugf("submission %d: run %d running in Job %s; EvalAI told after the run's next list",
                submission.submissionPk(), event.run(), event.jobName());
        return Optional.of(new Start(record, event, destination));
    }

    /**
     * A running run found in the index that this process had not seen, with no partial results sent: whether EvalAI
     * was told {@code running} is not known here (the process that handled its start may have stopped before its
     * list), so it is told again after the run's next list (the same update: EvalAI shows {@code running} either way).
     */
    static Optional<Start> unannounced(Found run, Instant now) {
        var record = run.record();
        if (!record.is(SubmissionStatus.RUNNING) || record.lastResultsDigest() != null || record.cancelRequested()
                || record.jobName() == null || record.identity().isEmpty()) {
            return Optional.empty();
        }
        Instant started = record.times().started() != null ? record.times().started() : now;
        return Optional.of(new Start(record, JobStarted.of(record.identity().get(), record.run(), record.jobName(),
                started, now), run.destination()));
    }

    /**
     * A believed report of the record's running run: the record's progress, and with news (another results digest,
     * or other routes done, than the run's last report relayed) the partial update for the outbox.
     */
    Optional<Partial> progress(SubmissionRecord record, SubmissionIdentity submission, Progress report,
            Destination destination) {
        String id = record.submissionId();
        Instant now = clock.instant();
        int routesDone = routesDone(record, report);
        boolean news = !Objects.equals(report.resultsDigest(), record.lastResultsDigest())
                || routesDone != record.routesDone().orElse(-1);
        if (!records.recordProgress(destination.table(), record, report, routesDone, location(destination, id), now)) {
            drop(report.type(), RelayMetrics.NOT_RUNNING, submission, "run " + record.run() + " moved on");
            return Optional.empty();
        }
        if (record.cancelRequested()) {
            // The pod is being stopped: a partial update would take EvalAI out of cancelled.
            cancels.request(record, destination);
        }
        if (!news || record.cancelRequested()) {
            metrics.unchanged(report.type());
            LOG.debugf("submission %s: run %d, nothing to relay (%d/%d routes%s)", id, record.run(),
                    report.routesDone(), report.routesTotal(), report.heartbeat() ? ", heartbeat" : "");
            return Optional.empty();
        }
        return Optional.of(new Partial(record, submission, report, destination));
    }

    /**
     * The routes done a report brings to the record. In a run of several pods each pod's logcopy reports the whole
     * ledger's count as of its last merge, and a pod that merged earlier may report after one that merged later: the
     * count never goes back within the run (the ledger's finished routes only grow). A run of one pod reports its own.
     */
    static int routesDone(SubmissionRecord record, Progress report) {
        if (record.pods() > 1 && record.routesDone().isPresent()) {
            return Math.max(report.routesDone(), record.routesDone().getAsInt());
        }
        return report.routesDone();
    }

    /**
     * A partial update made ready before its list is sent: the record read again (the run still runs, with no cancel
     * recorded) and the files read, so that the list and the update follow each other closely. Empty when the run
     * moved on; an exception when a read failed (the update then waits for the run's next list).
     */
    Optional<ReadyPartial> prepare(Partial partial) {
        return current(partial).map(record -> new ReadyPartial(partial, record.lastResultsDigest(),
                evaluation(record, partial.destination())));
    }

    /** The record right after the list, if the run still runs with no cancel recorded and nothing relayed meanwhile. */
    Optional<SubmissionRecord> stillReady(ReadyPartial ready) {
        return current(ready.partial())
                .filter(record -> Objects.equals(record.lastResultsDigest(), ready.lastDigest()));
    }

    /** The partial results reached EvalAI: the record's digest (after the update: a crash between sends it again). */
    void relayed(ReadyPartial ready, SubmissionRecord record) {
        var partial = ready.partial();
        var report = partial.report();
        records.recordRelayed(partial.destination().table(), record, report);
        metrics.relayed(report.type());
        LOG.debugf("submission %s: run %d, partial results sent (%d/%d routes)", record.submissionId(), record.run(),
                report.routesDone(), report.routesTotal());
    }

    /** Right after the list: the run still runs in that run, with no cancel recorded and no partial results sent. */
    boolean stillToStart(Start start) {
        var event = start.event();
        return records.find(start.destination().table(), event.submission().teamId(),
                Long.toString(event.submission().submissionPk()))
                .filter(found -> found.run() == event.run() && found.is(SubmissionStatus.RUNNING)
                        && !found.cancelRequested() && found.lastResultsDigest() == null)
                .isPresent();
    }

    void started(Start start) {
        var event = start.event();
        metrics.relayed(event.type());
        LOG.infof("submission %d: run %d running in Job %s since %s", event.submission().submissionPk(), event.run(),
                event.jobName(), event.podStartedAt());
    }

    /** The record of a waiting update's run, if that run still runs with no cancel recorded. */
    private Optional<SubmissionRecord> current(Partial partial) {
        var report = partial.report();
        return records.find(partial.destination().table(), report.submission().teamId(),
                Long.toString(report.submission().submissionPk()))
                .filter(record -> record.run() == report.run() && record.is(SubmissionStatus.RUNNING)
                        && !record.cancelRequested());
    }

    /** What EvalAI is to show of the run now: the merged checkpoint under the submission's own prefix, audited. */
    private Evaluation evaluation(SubmissionRecord record, Destination destination) {
        var shown = evaluationFiles.mergedResults(destination.bucket(), record.submissionId(), record.expectedRoutes(),
                record.pods())
                .audit().map(ResultsAudit::shown).orElseGet(CheckpointFile::empty);
        return evaluationFiles.evaluation(shown, "");
    }

    private static String location(Destination destination, String submissionId) {
        return SubmissionLayout.location(destination.bucket(), submissionId);
    }

    /**
     * A waiting update made ready for its run's list: the results digest last relayed when it was made ready (another
     * update relayed meanwhile supersedes it) and the evaluation to send.
     */
    record ReadyPartial(Partial partial, String lastDigest, Evaluation evaluation) {
    }

    private void drop(String type, String reason, SubmissionIdentity submission, String why) {
        LOG.infof("submission %d: dropping %s (%s): %s", submission.submissionPk(), type, reason, why);
        metrics.dropped(type, reason);
    }
}
