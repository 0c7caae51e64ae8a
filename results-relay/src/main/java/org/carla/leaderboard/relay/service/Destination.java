package org.carla.leaderboard.relay.service;

import java.util.Optional;

import org.carla.leaderboard.domain.track.EvaluationConfig;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.domain.track.TrackSpec;

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

    /** The leaderboard's bucket and table; empty when the leaderboard is not configured. */
    static Optional<Destination> of(TrackCatalog catalog, String leaderboard) {
        return catalog.leaderboard(leaderboard).map(Destination::of);
    }

    private static Destination of(EvaluationConfig.Leaderboard leaderboard) {
        return new Destination(leaderboard.bucket(), leaderboard.submissionsTable(), Optional.empty());
    }

    /** This leaderboard with the track of the submission's phase. */
    Destination forPhase(TrackCatalog catalog, long phasePk) {
        return new Destination(bucket, table, catalog.forPhase(phasePk));
    }

    boolean hidesLogs() {
        return track.map(TrackSpec::hideLogs).orElse(false);
    }
}
