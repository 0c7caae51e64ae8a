package org.carla.leaderboard.domain.event;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The key of a submission's record and where it lives, and nothing a participant chose: what a submission pod knows of
 * its submission ({@code SUBMISSION_ID}, {@code TEAM_ID}, {@code LEADERBOARD} in its environment). The team name, the
 * challenge and the phase are read from the record by whoever needs them, never taken from a pod.
 *
 * @param submissionPk EvalAI's submission pk, also the record's {@code submission_id} and the S3 prefix
 * @param teamId       EvalAI's participant team pk, the record's {@code team_id}
 * @param leaderboard  the leaderboard id: its table and bucket
 */
@RegisterForReflection
public record SubmissionRef(long submissionPk, long teamId, String leaderboard) {

    public SubmissionRef {
        Require.positive(submissionPk, "submission_pk");
        Require.positive(teamId, "team_id");
        Require.text(leaderboard, "leaderboard");
        Require.identifier(leaderboard, "leaderboard");
    }

    public static SubmissionRef of(SubmissionIdentity identity) {
        return new SubmissionRef(identity.submissionPk(), identity.teamId(), identity.leaderboard());
    }

    public String submissionId() {
        return Long.toString(submissionPk);
    }

    public String teamIdText() {
        return Long.toString(teamId);
    }
}
