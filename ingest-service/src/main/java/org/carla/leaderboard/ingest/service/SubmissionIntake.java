package org.carla.leaderboard.ingest.service;

import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.evalai.EvalAiBudgetSpentException;
import org.carla.leaderboard.domain.evalai.EvalAiRefusedException;
import org.carla.leaderboard.domain.evalai.EvalAiRejectedException;
import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.ImageReference;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.MalformedEventException;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.event.SubmissionAnnounced;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.ingest.SubmissionRecord;
import org.carla.leaderboard.ingest.client.EvalAiClient;
import org.carla.leaderboard.ingest.client.EvalAiSubmission;
import org.carla.leaderboard.ingest.client.SubmissionNotFoundException;
import org.carla.leaderboard.messaging.Dependencies;
import org.carla.leaderboard.messaging.Dependency;
import org.carla.leaderboard.messaging.MessageHandler;
import org.carla.leaderboard.messaging.ReceivedMessage;
import org.carla.leaderboard.messaging.RejectedMessageException;
import org.jboss.logging.Logger;

/**
 * One EvalAI announcement, from the queue to a decision: parse it, map its phase to a track, ask EvalAI who submitted
 * it and in which state, write the record, then publish a launch request or a not-launched event. Returning means
 * the decision is published and the message may be deleted; a {@link MalformedEventException} or
 * {@link RejectedMessageException} sends it to the dead-letter queue; anything else returns it to the queue.
 *
 * <p>Every launch is a numbered run of the submission, kept in its record: the first announcement opens run 1, each
 * resume on EvalAI the next one. A message delivered twice: while the record is still SUBMITTED in that run the
 * decision is published again (the first publish may have been lost) and job-launcher, which claims a run once,
 * creates no second Job; once the record has moved on, nothing is published.
 */
@ApplicationScoped
public class SubmissionIntake implements MessageHandler {

    private static final Logger LOG = Logger.getLogger(SubmissionIntake.class);

    private final TrackCatalog catalog;
    private final EvalAiClient evalAi;
    private final QualifiedTeams qualifiers;
    private final SubmissionRecords records;
    private final EventPublisher publisher;
    private final IntakeMetrics metrics;
    private final Dependency evalAiState;
    private final Dependency tokenState;
    private final Clock clock;

    SubmissionIntake(TrackCatalog catalog, EvalAiClient evalAi, QualifiedTeams qualifiers, SubmissionRecords records,
            EventPublisher publisher, IntakeMetrics metrics, Dependencies dependencies, Clock clock) {
        this.catalog = catalog;
        this.evalAi = evalAi;
        this.evalAiState = dependencies.get(Dependencies.EVALAI);
        this.tokenState = dependencies.get(Dependencies.EVALAI_TOKEN);
        this.qualifiers = qualifiers;
        this.records = records;
        this.publisher = publisher;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    public void handle(ReceivedMessage message) {
        Instant received = clock.instant();
        Instant announcedAt = message.sentAt() == null ? received : message.sentAt();
        decide(EventCodec.parseAnnouncement(message.body()), received, announcedAt);
    }

    /**
     * Decides on one announcement and publishes the decision; returns whether something was published (false: the
     * record has moved on, a repeat). Also the stuck rule {@code unlaunched}'s mend ({@link UnlaunchedRuns}): a record
     * still SUBMITTED is announced again, so its current run's launch request (or, if EvalAI now shows it cancelled,
     * its not-launched event) is decided and published exactly as the first time.
     */
    public boolean decide(SubmissionAnnounced announced, Instant received, Instant announcedAt) {
        // A hostile image is refused before anything is written, whatever EvalAI says of the submission.
        announced.imageUri().ifPresent(SubmissionIntake::requirePlainImage);
        TrackSpec track = catalog.forPhase(announced.phasePk()).orElseThrow(() -> new RejectedMessageException(
                "unknown-phase", "phase " + announced.phasePk() + " of submission " + announced.submissionPk()
                        + " is mapped to no track (evaluation.phases)"));
        EvalAiSubmission submission = fetch(announced);
        SubmissionIdentity identity = identity(announced, submission, track);
        EvalAiStatus status = EvalAiStatus.parse(submission.status());

        Decision decision = Decision.of(status, catalog.requiresQualification(announced.phasePk()),
                () -> qualifiers.hasQualified(identity.teamId(), track.track()));
        return switch (decision) {
            case CANCELLED -> notLaunched(identity, announced, submission, track, decision.notLaunchedReason(),
                    "EvalAI shows the submission cancelled", received, announcedAt);
            case NOT_ALLOWED -> notLaunched(identity, announced, submission, track, decision.notLaunchedReason(),
                    "team " + identity.teamId() + " has not passed the qualifier of track " + track.track(), received,
                    announcedAt);
            case LAUNCH, RESUME -> {
                String image = announced.imageUri()
                        .orElseThrow(() -> MalformedEventException.missing("submitted_image_uri"));
                yield launch(identity, announced, submission, track, image, decision == Decision.RESUME, received,
                        announcedAt);
            }
        };
    }

    private boolean launch(SubmissionIdentity identity, SubmissionAnnounced announced, EvalAiSubmission submission,
            TrackSpec track, String image, boolean resume, Instant now, Instant announcedAt) {
        var record = record(identity, submission, track, image, now);
        String table = table(track);
        var outcome = resume ? records.recordResumed(table, record, resumedAt(submission, now), now)
                : records.recordAnnounced(table, record, now);
        if (outcome.launch().isEmpty()) {
            LOG.infof("submission %d is already %s in run %d: repeated %s, nothing launched", identity.submissionPk(),
                    outcome.status(), outcome.run(), resume ? "resume" : "announcement");
            metrics.repeated(announcedAt);
            return false;
        }
        int run = outcome.launch().get();
        publisher.launch(LaunchRequest.of(identity, run, image, resume, track, now));
        metrics.launched(resume, announcedAt);
        LOG.infof("submission %d run %d of team %d on %s/%s: launch requested (%d worker pairs%s)",
                identity.submissionPk(), run, identity.teamId(), track.leaderboard(), track.track(),
                track.effectiveWorkerPairs(), resume ? ", resume" : "");
        return true;
    }

    private boolean notLaunched(SubmissionIdentity identity, SubmissionAnnounced announced, EvalAiSubmission submission,
            TrackSpec track, NotLaunched.Reason reason, String detail, Instant now, Instant announcedAt) {
        var record = record(identity, submission, track, announced.imageUri().orElse(null), now);
        var outcome = records.recordAnnounced(table(track), record, now);
        if (outcome.launch().isEmpty()) {
            LOG.infof("submission %d is already %s in run %d: repeated announcement, nothing published",
                    identity.submissionPk(), outcome.status(), outcome.run());
            metrics.repeated(announcedAt);
            return false;
        }
        publisher.notLaunched(NotLaunched.of(identity, outcome.launch().get(), reason, detail, now));
        metrics.notLaunched(reason, announcedAt);
        LOG.infof("submission %d of team %d on %s/%s not launched (%s): %s", identity.submissionPk(),
                identity.teamId(), track.leaderboard(), track.track(), reason, detail);
        return true;
    }

    /**
     * EvalAI's view of the submission. A 404 or another rejection (4xx) is final (dead-letter), and EvalAI answered; a
     * refused token is a configuration error ({@link Dependencies#EVALAI_TOKEN} down) and leaves the message on the
     * queue; anything else that fails once the client's own retries are spent (5xx, 429, timeouts) marks EvalAI down and
     * leaves the message on the queue likewise; this service's EvalAI budget spent for now leaves it there too.
     */
    private EvalAiSubmission fetch(SubmissionAnnounced announced) {
        try {
            EvalAiSubmission submission = evalAi.submission(announced.submissionPk());
            evalAiState.answered();
            tokenState.answered();
            return submission;
        } catch (SubmissionNotFoundException e) {
            evalAiState.answered();
            throw new RejectedMessageException("submission-not-found", e.getMessage(), e);
        } catch (EvalAiRejectedException e) {
            evalAiState.answered();
            throw new RejectedMessageException("evalai-rejected", e.getMessage(), e);
        } catch (EvalAiRefusedException e) {
            evalAiState.answered();
            tokenState.failed(e.getMessage());
            throw e;
        } catch (EvalAiBudgetSpentException e) {
            throw e;
        } catch (RuntimeException e) {
            evalAiState.failed(e);
            throw e;
        }
    }

    /** Who submitted, from EvalAI's answer; an answer that does not fit the announcement is refused. */
    private static SubmissionIdentity identity(SubmissionAnnounced announced, EvalAiSubmission submission,
            TrackSpec track) {
        if (submission.challengePhase() != null && submission.challengePhase() != announced.phasePk()) {
            // The phase decides the track and its gate: trust neither side when they disagree.
            throw new RejectedMessageException("phase-mismatch", "submission " + announced.submissionPk()
                    + " is announced on phase " + announced.phasePk() + " but EvalAI shows phase "
                    + submission.challengePhase());
        }
        if (submission.participantTeam() == null || submission.participantTeam() <= 0
                || submission.participantTeamName() == null || submission.participantTeamName().isBlank()) {
            throw new RejectedMessageException("evalai-incomplete", "EvalAI's submission "
                    + announced.submissionPk() + " has no participant team or team name");
        }
        return new SubmissionIdentity(announced.submissionPk(), announced.challengePk(), announced.phasePk(),
                submission.participantTeam(), submission.participantTeamName(), track.leaderboard(), track.track());
    }

    private static SubmissionRecord record(SubmissionIdentity identity, EvalAiSubmission submission, TrackSpec track,
            String image, Instant now) {
        return new SubmissionRecord(identity, track, image, time(submission.submittedAt(), now));
    }

    /**
     * The resume's own time on EvalAI, which tells a new resume from a repeated delivery of the same one; without it
     * (an EvalAI that does not say), the message's arrival.
     */
    private static Instant resumedAt(EvalAiSubmission submission, Instant fallback) {
        return time(submission.rerunResumedAt(), fallback);
    }

    private String table(TrackSpec track) {
        return catalog.leaderboard(track.leaderboard()).orElseThrow().submissionsTable();
    }

    private static Instant time(String value, Instant fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException e) {
            return fallback;
        }
    }

    private static void requirePlainImage(String image) {
        String problem = ImageReference.problem(image);
        if (problem != null) {
            throw MalformedEventException.invalid("submitted_image_uri", problem);
        }
    }
}
