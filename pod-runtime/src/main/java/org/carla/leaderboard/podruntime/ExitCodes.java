package org.carla.leaderboard.podruntime;

/**
 * The exit codes of every pod-runtime command. Kubernetes restarts a container (restartPolicy OnFailure) on anything
 * but 0.
 */
public final class ExitCodes {

    public static final int DONE = 0;
    public static final int CANCELLED = 0;
    public static final int CRASHED = 1;
    /** A missing or malformed variable or argument: the Job is wrong, not the run (picocli's own usage code). */
    public static final int BAD_CONFIGURATION = 2;
    /** Stopped by SIGTERM: 128 + 15, as a shell would report it. */
    public static final int TERMINATED = 143;

    private ExitCodes() {
    }
}
