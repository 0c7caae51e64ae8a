package org.carla.leaderboard.domain.event;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Who and what a submission is, carried by every event after the intake so no consumer has to look it up again.
 * {@code leaderboard} names the leaderboard (its bucket and table), {@code track} the track's codename.
 */
@RegisterForReflection
public record SubmissionIdentity(long submissionPk, long challengePk, long phasePk, long teamId, String teamName,
        String leaderboard, String track) {

    public SubmissionIdentity {
        Require.positive(submissionPk, "submission_pk");
        Require.positive(challengePk, "challenge_pk");
        Require.positive(phasePk, "phase_pk");
        Require.text(teamName, "team_name");
        Require.text(leaderboard, "leaderboard");
        Require.text(track, "track");
    }

    /** The submission id as stored in DynamoDB and used as the S3 prefix. */
    public String submissionId() {
        return Long.toString(submissionPk);
    }
}
