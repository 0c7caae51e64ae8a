package org.carla.leaderboard.ingest;

import java.time.Instant;

import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.track.TrackSpec;

/**
 * What the intake writes of a submission's record ({@code domain.record.SubmissionTable}) when it is announced or
 * resumed; job-launcher and results-relay write the rest.
 *
 * @param submission  who and what: team id and submission id are the table's key
 * @param track       the track's snapshot: worker pairs, expected routes, instance type
 * @param imageUri    the participant's image, or {@code null} when the message carried none (a cancelled one)
 * @param submittedAt when EvalAI took the submission
 */
public record SubmissionRecord(SubmissionIdentity submission, TrackSpec track, String imageUri, Instant submittedAt) {

    public String teamId() {
        return Long.toString(submission.teamId());
    }

    public String submissionId() {
        return submission.submissionId();
    }
}
