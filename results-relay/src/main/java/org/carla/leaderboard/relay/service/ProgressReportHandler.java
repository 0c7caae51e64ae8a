package org.carla.leaderboard.relay.service;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.messaging.ArrivedEarlyException;
import org.carla.leaderboard.messaging.MessageHandler;
import org.carla.leaderboard.messaging.ReceivedMessage;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

/**
 * One report of {@code progress-reports}, which submission pods send and a participant's code may forge: believed only
 * when the submission's record exists, its current run is the report's and that run is RUNNING; a report of the
 * current run before its start is recorded (the pod's first reports can overtake job-launcher's {@code job-started})
 * waits on the queue until it is. The submission's
 * identity (team name, challenge, phase, track) comes from the record, never from the report; the files relayed come
 * from the submission's own prefix; news goes to EvalAI through the {@link EvalAiOutbox}, after the run's next list. A
 * report not believed is logged, counted by reason and deleted.
 */
@ApplicationScoped
public class ProgressReportHandler implements MessageHandler {

    private static final Logger LOG = Logger.getLogger(ProgressReportHandler.class);

    private final TrackCatalog catalog;
    private final SubmissionRecords records;
    private final RunningReports running;
    private final SubmissionLocks locks;
    private final RelayMetrics metrics;
    private final EvalAiOutbox outbox;

    ProgressReportHandler(TrackCatalog catalog, SubmissionRecords records, RunningReports running,
            SubmissionLocks locks, RelayMetrics metrics, EvalAiOutbox outbox) {
        this.outbox = outbox;
        this.catalog = catalog;
        this.records = records;
        this.running = running;
        this.locks = locks;
        this.metrics = metrics;
    }

    @Override
    public void handle(ReceivedMessage message) {
        Progress report = EventCodec.parseProgress(message.body());
        var ref = report.submission();
        var leaderboard = Destination.of(catalog, ref.leaderboard());
        if (leaderboard.isEmpty()) {
            drop(report, RelayMetrics.UNKNOWN_SUBMISSION, "leaderboard '" + ref.leaderboard() + "' is not configured");
            return;
        }
        locks.run(ref.submissionPk(), () -> believe(report, leaderboard.get()));
    }

    private void believe(Progress report, Destination leaderboard) {
        var ref = report.submission();
        var found = records.find(leaderboard.table(), ref.teamId(), ref.submissionId());
        if (found.isEmpty() || found.get().identity().isEmpty()) {
            drop(report, RelayMetrics.UNKNOWN_SUBMISSION, "no record of team " + ref.teamId() + " holds it");
            return;
        }
        var record = found.get();
        if (record.run() != report.run()) {
            drop(report, RelayMetrics.OTHER_RUN, "the current run is " + record.run());
            return;
        }
        if (record.isTerminal()) {
            drop(report, RelayMetrics.FINAL, "run " + record.run() + " is already " + record.status());
            return;
        }
        if (!record.is(SubmissionStatus.RUNNING)) {
            // SUBMITTED or PENDING: the pod runs (it reported), job-launcher's job-started is not handled yet.
            throw new ArrivedEarlyException("run " + record.run() + " is " + record.status()
                    + ": its start is not recorded yet");
        }
        var identity = record.identity().get();
        running.progress(record, identity, report, leaderboard.forPhase(catalog, identity.phasePk()))
                .ifPresent(outbox::partial);
    }

    private void drop(Progress report, String reason, String why) {
        LOG.infof("submission %d: dropping a progress report of run %d (%s): %s", report.submission().submissionPk(),
                report.run(), reason, why);
        metrics.dropped(report.type(), reason);
    }
}
