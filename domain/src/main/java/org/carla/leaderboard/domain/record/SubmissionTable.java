package org.carla.leaderboard.domain.record;

import java.util.Map;

import org.carla.leaderboard.domain.status.SubmissionStatus;

/**
 * A leaderboard's submissions table ({@code evaluation.leaderboards.<id>.submissions-table}): the one description of
 * its key and attributes, for every service that reads or writes it. Key: {@link #TEAM_ID} (S) + {@link #SUBMISSION_ID}
 * (S). Times are ISO-8601 strings; a time or metric not reached yet is {@link #NOT_YET}, as in the original's records.
 *
 * <p>Who writes what: ingest-service creates the record and opens each run ({@link #RUN}); job-launcher claims the run
 * for its Job ({@link #LAUNCHED_RUN}, {@link #JOB_NAME}, status PENDING), notes the images its pod ran
 * ({@link #RUN_IMAGES}) and when the Job ended ({@link #JOB_ENDED_RUN}); results-relay moves the run to RUNNING and to
 * its final status with the metrics. Every write after the intake is conditional on {@link #RUN}, so nothing of an
 * earlier run touches a later one.
 */
public final class SubmissionTable {

    /** Attribute value of a time or metric not reached yet. */
    public static final String NOT_YET = "-";

    /**
     * The global secondary index by status: partition key {@link #STATUS} (S), sort key {@link #SUBMISSION_ID} (S),
     * every attribute projected. A query of one status reads only the records holding it, so the submissions of a run
     * that is not over (SUBMITTED, PENDING, RUNNING) are found without scanning the table (results-relay's cancel
     * check every minute). Every record holds a status, so the index holds every record; the terminal statuses'
     * partitions grow with the leaderboard's history and are never queried by the minute.
     */
    public static final String STATUS_INDEX = "submission_status-index";

    // The key.
    public static final String TEAM_ID = "team_id";
    public static final String SUBMISSION_ID = "submission_id";

    // Written by ingest-service when the submission is announced (and again when it is resumed).
    public static final String TEAM_NAME = "team_name";
    public static final String STATUS = "submission_status";
    /** The EvalAI phase pk (the original's name for it). */
    public static final String TRACK_ID = "track_id";
    /** The track's codename. */
    public static final String TRACK_NAME = "track_name";
    public static final String CHALLENGE_ID = "challenge_id";
    public static final String LEADERBOARD = "leaderboard";
    public static final String IMAGE_URI = "submitted_image_uri";
    /** Worker pairs of each pod of the Job. */
    public static final String WORKERS = "parallelization_workers";
    /**
     * The run's pods (an Indexed Job's completions); absent for a record written before runs had pods, which had one.
     * In a run of several, each pod's files are under its own folder ({@code layout.SubmissionLayout.podDir}).
     */
    public static final String PODS = "parallelization_pods";
    /** Route records a complete run holds (routes × repetitions): what FINISHED requires. */
    public static final String EXPECTED_ROUTES = "expected_routes";
    /** The node's instance type, for the GPU-hours. */
    public static final String INSTANCE_TYPE = "instance_type";
    public static final String SUBMITTED_TIME = "submitted_time";
    /** The current run: 1 at the first launch, one more at each resume. */
    public static final String RUN = "run";
    public static final String RESUMED_TIME = "resumed_time";
    /** How many resumes so far. */
    public static final String RESUMES = "resumes";
    /**
     * When the stuck rule {@code unlaunched} last published the current run's launch request again: the rule counts
     * its bound from here, so a run waits a whole bound between two such requests.
     */
    public static final String LAUNCH_REQUESTED_TIME = "launch_requested_time";

    // Written by job-launcher.
    /** The run whose Job job-launcher created (or is creating): a launch request of another run is refused. */
    public static final String LAUNCHED_RUN = "launched_run";
    public static final String JOB_NAME = "job_name";
    public static final String LAUNCHED_TIME = "launched_time";
    /** The run whose Job ended and was reported: its Job is never made again. */
    public static final String JOB_ENDED_RUN = "job_ended_run";
    /** What the run's pod ran, by digest, once it started ({@link RunImages}: a map holding its run). */
    public static final String RUN_IMAGES = "run_images";

    // Written by results-relay.
    /** What the run drove with, as its init read it ({@link RunVersions}: a map holding its run); with the final status. */
    public static final String RUN_VERSIONS = "run_versions";
    /** When the run's pod started running. */
    public static final String START_TIME = "start_time";
    public static final String END_TIME = "end_time";
    public static final String RESULTS_LOCATION = "results_location";
    /** Whether EvalAI has confirmed the final status of the current run. */
    public static final String FINAL_SENT = "evalai_final_sent";
    /** The run results-relay saw cancelled on EvalAI: only this, never a file in the pod, makes a run CANCELLED. */
    public static final String CANCEL_REQUESTED_RUN = "cancel_requested_run";
    public static final String LAST_PROGRESS_TIME = "last_progress_time";
    /** The {@code results_digest} of the last progress relayed to EvalAI. */
    public static final String LAST_RESULTS_DIGEST = "last_results_digest";
    public static final String ROUTES_DONE = "routes_done";
    public static final String ROUTES_TOTAL = "routes_total";
    /**
     * The {@code ending} of the run's last progress report ({@code Progress.Ending} name); absent while none ended, and
     * removed with {@link #NOT_UPLOADED} when a resume opens the next run (ingest-service).
     */
    public static final String LAST_ENDING = "last_ending";
    /** The files logcopy's last report of the run named as not uploaded (a list of strings); absent when none. */
    public static final String NOT_UPLOADED = "not_uploaded";
    /** Why the run failed, as the participant was told (first line). */
    public static final String FAILURE_REASON = "failure_reason";
    public static final String GPU_HOURS = "gpu_hours";
    /**
     * The stuck rule {@code no-progress}: the progress time (else start time) of the current run that results-relay
     * reported as silent for too long, once per silence (a later progress report starts a new one).
     */
    public static final String NO_PROGRESS_SINCE = "no_progress_since";

    // Written by every writer at each change of status.
    /**
     * The status changes of every run, oldest first: a list of maps {@code at} (ISO-8601), {@code run} (N),
     * {@code status} ({@link SubmissionStatus} name), {@code by} (the service), {@code detail} (free text, may be
     * absent). Appended with {@code list_append} in the same conditional write that changes the status.
     */
    public static final String HISTORY = "status_history";
    public static final String HISTORY_AT = "at";
    public static final String HISTORY_RUN = "run";
    public static final String HISTORY_STATUS = "status";
    public static final String HISTORY_BY = "by";
    public static final String HISTORY_DETAIL = "detail";

    private SubmissionTable() {
    }

    /** The key of a submission's record, as attribute name → string value. */
    public static Map<String, String> key(long teamId, String submissionId) {
        return Map.of(TEAM_ID, Long.toString(teamId), SUBMISSION_ID, submissionId);
    }

    /** The status a record holds; empty when it holds none or one this code does not know. */
    public static java.util.Optional<SubmissionStatus> status(String attributeValue) {
        return SubmissionStatus.parse(attributeValue);
    }
}
