package org.carla.leaderboard.domain.pod;

/**
 * The labels of a submission's Job (and of its pod, through the template), for whoever finds a submission's Job in the
 * cluster: job-launcher puts them there, ops-console selects by them. Values are the submission's, made label-safe by
 * job-launcher; the Kubernetes Job controller adds {@link #JOB_NAME} to the pod.
 */
public final class JobLabels {

    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    /** The value of {@link #MANAGED_BY} on every Job job-launcher made. */
    public static final String LAUNCHER = "job-launcher";
    public static final String SUBMISSION_ID = "leaderboard.carla.org/submission-id";
    public static final String TEAM_ID = "leaderboard.carla.org/team-id";
    public static final String LEADERBOARD = "leaderboard.carla.org/leaderboard";
    public static final String TRACK = "leaderboard.carla.org/track";
    /** The run the Job is of (1 at the first launch, one more per resume). */
    public static final String RUN = "leaderboard.carla.org/run";
    /** Set on the pod by the Job controller: the name of its Job. */
    public static final String JOB_NAME = "batch.kubernetes.io/job-name";
    /** The Job controller's annotation (and, since 1.28, label) of an Indexed Job's pod: its completion index. */
    public static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

    private JobLabels() {
    }
}
