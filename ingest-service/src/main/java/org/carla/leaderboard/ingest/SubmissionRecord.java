package org.carla.leaderboard.ingest;

import java.time.Instant;

import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.status.SubmissionStatus;

/**
 * The submission's row in its leaderboard's DynamoDB table, as the intake first writes it (results-relay later sets
 * RUNNING, the end time and the metrics).
 *
 * @param submission   who and what: team id and submission id are the table's key
 * @param imageUri     the participant's image, or {@code null} when the message carried none (a cancelled one)
 * @param workerPairs  simulator/agent pairs the Job will run ({@code parallelization_workers})
 * @param submittedAt  when EvalAI took the submission
 */
public record SubmissionRecord(SubmissionIdentity submission, long phasePk, String imageUri, int workerPairs,
        Instant submittedAt) {

    /** Attribute values for a time not reached yet, as the original's records have them. */
    public static final String NOT_YET = "-";

    public static final String TEAM_ID = "team_id";
    public static final String SUBMISSION_ID = "submission_id";
    public static final String TEAM_NAME = "team_name";
    public static final String STATUS = "submission_status";
    public static final String TRACK_ID = "track_id";
    public static final String TRACK_NAME = "track_name";
    public static final String IMAGE_URI = "submitted_image_uri";
    public static final String WORKERS = "parallelization_workers";
    public static final String SUBMITTED_TIME = "submitted_time";
    public static final String START_TIME = "start_time";
    public static final String END_TIME = "end_time";
    /** Set by a resume: when, and how many resumes so far. */
    public static final String RESUMED_TIME = "resumed_time";
    public static final String RESUMES = "resumes";

    /** The status a fresh record has; only a record still in it may be written again by a repeated delivery. */
    public static final SubmissionStatus INITIAL_STATUS = SubmissionStatus.SUBMITTED;

    public String teamId() {
        return Long.toString(submission.teamId());
    }

    public String submissionId() {
        return submission.submissionId();
    }
}
