package org.carla.leaderboard.podruntime;

import org.carla.leaderboard.domain.pod.PodEnvironment;

/**
 * The exit codes of every pod-runtime command. The pair containers are the pod's sidecars (init containers with
 * {@code restartPolicy: Always}): the kubelet restarts them after any exit, 0 included, so a pair role that ended with
 * 0 holds until the pod ends (SIGTERM), and only then exits 0. logcopy is the pod's one regular container: its exit
 * ends the pod (0: Succeeded, else Failed), and {@link #RESTART_LIMIT} makes the Job's podFailurePolicy fail the Job.
 */
public final class ExitCodes {

    public static final int DONE = 0;
    public static final int CANCELLED = 0;
    public static final int CRASHED = 1;
    /** A missing or malformed variable or argument: the Job is wrong, not the run (picocli's own usage code). */
    public static final int BAD_CONFIGURATION = 2;
    /** logcopy: the pair containers restarted as often as {@code RESTART_LIMIT} allows; the Job fails on it. */
    public static final int RESTART_LIMIT = PodEnvironment.RESTART_LIMIT_EXIT_CODE;
    /** Stopped by SIGTERM: 128 + 15, as a shell would report it. */
    public static final int TERMINATED = 143;

    private ExitCodes() {
    }
}
