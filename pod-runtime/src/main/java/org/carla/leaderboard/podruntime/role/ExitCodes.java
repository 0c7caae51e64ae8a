package org.carla.leaderboard.podruntime.role;

/** The exit codes of the pair roles: Kubernetes restarts a container (restartPolicy OnFailure) on anything but 0. */
public final class ExitCodes {

    public static final int DONE = 0;
    public static final int CANCELLED = 0;
    public static final int CRASHED = 1;
    /** Stopped by SIGTERM: 128 + 15, as a shell would report it. */
    public static final int TERMINATED = 143;

    private ExitCodes() {
    }
}
