package org.carla.leaderboard.relay.service;

import java.util.Optional;

import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.messaging.RejectedMessageException;

/**
 * Where a submission's files and record live, and the rules of its track, resolved from the shared track
 * configuration.
 *
 * @param bucket the leaderboard's S3 bucket
 * @param table  the leaderboard's submissions table
 * @param track  the track of the submission's phase; empty when the phase is no longer configured (then it is
 *               reported as a plain track: no qualifier, logs shown)
 */
record Destination(String bucket, String table, Optional<TrackSpec> track) {

    static Destination of(SubmissionIdentity submission, TrackCatalog catalog) {
        var leaderboard = catalog.leaderboard(submission.leaderboard()).orElseThrow(
                () -> new RejectedMessageException("unknown-leaderboard", "submission " + submission.submissionPk()
                        + " names leaderboard '" + submission.leaderboard() + "', which is not configured"));
        return new Destination(leaderboard.bucket(), leaderboard.submissionsTable(),
                catalog.forPhase(submission.phasePk()));
    }

    boolean hidesLogs() {
        return track.map(TrackSpec::hideLogs).orElse(false);
    }
}
