package org.carla.leaderboard.messaging;

/**
 * A message that is valid but came before the one it follows (a pod's progress report before job-launcher's
 * {@code job-started} of its run is recorded): it waits on the queue with the same back-off as a passing failure and
 * is tried again, logged at INFO, counted with outcome {@code early}. The consumer never dead-letters it.
 */
public final class ArrivedEarlyException extends RuntimeException {

    public ArrivedEarlyException(String message) {
        super(message);
    }
}
