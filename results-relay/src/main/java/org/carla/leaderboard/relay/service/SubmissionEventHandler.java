package org.carla.leaderboard.relay.service;

import java.util.concurrent.locks.ReentrantLock;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.messaging.MessageHandler;
import org.carla.leaderboard.messaging.ReceivedMessage;
import org.carla.leaderboard.messaging.RejectedMessageException;
import org.carla.leaderboard.relay.client.EvalAiRejectedException;

/**
 * One event of {@code submission-events}: parsed with the domain's codec (a malformed one is dead-lettered by the
 * consumer), then relayed. Events of one submission are handled one at a time in this process, so a duplicate
 * delivered in the same batch waits for the first copy instead of racing it; across processes the record's
 * conditional writes decide.
 */
@ApplicationScoped
public class SubmissionEventHandler implements MessageHandler {

    private static final int STRIPES = 64;

    private final TrackCatalog catalog;
    private final RunningReports running;
    private final FinalReports finals;
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    SubmissionEventHandler(TrackCatalog catalog, RunningReports running, FinalReports finals) {
        this.catalog = catalog;
        this.running = running;
        this.finals = finals;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    @Override
    public void handle(ReceivedMessage message) {
        SubmissionEvent event = EventCodec.parseSubmissionEvent(message.body());
        Destination destination = Destination.of(event.submission(), catalog);
        var lock = stripes[Math.floorMod(Long.hashCode(event.submission().submissionPk()), STRIPES)];
        lock.lock();
        try {
            relay(event, destination);
        } catch (EvalAiRejectedException e) {
            throw new RejectedMessageException("evalai-rejected", e.getMessage(), e);
        } finally {
            lock.unlock();
        }
    }

    private void relay(SubmissionEvent event, Destination destination) {
        if (event instanceof JobStarted started) {
            running.jobStarted(started, destination);
        } else if (event instanceof Progress progress) {
            running.progress(progress, destination);
        } else if (event instanceof JobFinished finished) {
            finals.jobFinished(finished, destination);
        } else if (event instanceof NotLaunched notLaunched) {
            finals.notLaunched(notLaunched, destination);
        }
    }
}
