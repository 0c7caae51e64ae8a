package org.carla.leaderboard.relay.service;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.messaging.MessageHandler;
import org.carla.leaderboard.messaging.ReceivedMessage;
import org.carla.leaderboard.messaging.RejectedMessageException;
import org.carla.leaderboard.relay.client.EvalAiClient;
import org.carla.leaderboard.domain.evalai.EvalAiRejectedException;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

/**
 * One lifecycle event of {@code submission-events} (only ingest-service and job-launcher send there, so its identity is
 * taken as sent): parsed with the domain's codec (a malformed one is dead-lettered by the consumer), checked against the
 * record's current run, recorded ({@link RunningReports}, {@link FinalReports}) and handed to the {@link EvalAiOutbox}.
 * An event of another run, or of a submission with no record, is logged, counted and deleted: a resumed submission is
 * never finalized by an earlier run's events.
 */
@ApplicationScoped
public class SubmissionEventHandler implements MessageHandler {

    private static final Logger LOG = Logger.getLogger(SubmissionEventHandler.class);

    private final TrackCatalog catalog;
    private final SubmissionRecords records;
    private final RunningReports running;
    private final FinalReports finals;
    private final SubmissionLocks locks;
    private final RelayMetrics metrics;
    private final EvalAiClient evalAi;
    private final EvalAiOutbox outbox;

    SubmissionEventHandler(TrackCatalog catalog, SubmissionRecords records, RunningReports running,
            FinalReports finals, SubmissionLocks locks, RelayMetrics metrics, EvalAiClient evalAi,
            EvalAiOutbox outbox) {
        this.evalAi = evalAi;
        this.outbox = outbox;
        this.catalog = catalog;
        this.records = records;
        this.running = running;
        this.finals = finals;
        this.locks = locks;
        this.metrics = metrics;
    }

    @Override
    public void handle(ReceivedMessage message) {
        SubmissionEvent event = EventCodec.parseSubmissionEvent(message.body());
        var submission = event.submission();
        Destination destination = Destination.of(catalog, submission.leaderboard())
                .orElseThrow(() -> new RejectedMessageException("unknown-leaderboard", "submission "
                        + submission.submissionPk() + " names leaderboard '" + submission.leaderboard()
                        + "', which is not configured"))
                .forPhase(catalog, submission.phasePk());
        try {
            locks.run(submission.submissionPk(), () -> relay(event, destination));
        } catch (EvalAiRejectedException e) {
            throw new RejectedMessageException("evalai-rejected", e.getMessage(), e);
        } catch (RuntimeException e) {
            evalAi.noteFailure(e);
            throw e;
        }
    }

    private void relay(SubmissionEvent event, Destination destination) {
        var submission = event.submission();
        var found = records.find(destination.table(), submission.teamId(), submission.submissionId());
        if (found.isEmpty()) {
            LOG.warnf("submission %d: dropping %s of run %d, there is no record of it", submission.submissionPk(),
                    event.type(), event.run());
            metrics.dropped(event.type(), RelayMetrics.UNKNOWN_SUBMISSION);
            return;
        }
        var record = found.get();
        if (record.run() != event.run()) {
            LOG.infof("submission %d: dropping %s of run %d, the current run is %d", submission.submissionPk(),
                    event.type(), event.run(), record.run());
            metrics.dropped(event.type(), RelayMetrics.OTHER_RUN);
            return;
        }
        if (event instanceof JobStarted started) {
            running.jobStarted(record, started, destination).ifPresent(outbox::start);
        } else if (record.isTerminal() && outbox.confirming(submission.submissionPk(), record.run())) {
            // A repeat (job-launcher's replicas both report a Job's end): sent already, its confirmation is due.
            LOG.infof("submission %d: dropping %s of run %d, its %s was sent and is confirmed at the run's next ask",
                    submission.submissionPk(), event.type(), record.run(), record.status());
            metrics.dropped(event.type(), RelayMetrics.FINAL);
        } else if (event instanceof JobFinished finished) {
            finals.jobFinished(record, finished, destination).ifPresent(outbox::send);
        } else if (event instanceof NotLaunched notLaunched) {
            finals.notLaunched(record, notLaunched, destination).ifPresent(outbox::send);
        }
    }
}
