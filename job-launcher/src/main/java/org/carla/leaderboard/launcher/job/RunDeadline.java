package org.carla.leaderboard.launcher.job;

import java.time.Duration;
import java.time.Instant;

import io.fabric8.kubernetes.api.model.batch.v1.Job;

/**
 * The Job's {@code activeDeadlineSeconds}, which Kubernetes counts from the Job's {@code status.startTime} — from
 * when its pod was created, waiting for a GPU node included. So that waiting for capacity does not spend the
 * evaluation's time, the Job is created with the track's deadline plus the longest wait for capacity, and once its
 * pod runs the deadline is moved to the wait it actually had plus the track's deadline: the run gets exactly its
 * deadline from the pod's start. A run that waits longer than the longest wait is ended by the launcher's reconcile.
 */
public final class RunDeadline {

    private RunDeadline() {
    }

    /** Where Kubernetes counts the deadline from: the Job's {@code status.startTime}; null until it is set. */
    public static Instant countedFrom(Job job) {
        return job.getStatus() == null ? null : JobEnd.instant(job.getStatus().getStartTime());
    }

    /** At creation: the track's deadline plus the longest wait for capacity. */
    public static long initial(long trackDeadlineSeconds, Duration longestCapacityWait) {
        return Math.addExact(trackDeadlineSeconds, longestCapacityWait.toSeconds());
    }

    /**
     * Once the pod runs: the seconds from the Job's start to the pod's (rounded up, never negative) plus the track's
     * deadline. Without a Job start (not reported yet) the wait counts as none.
     */
    public static long rebased(Instant jobStartedAt, Instant podStartedAt, long trackDeadlineSeconds) {
        long waited = 0;
        if (jobStartedAt != null && podStartedAt.isAfter(jobStartedAt)) {
            Duration wait = Duration.between(jobStartedAt, podStartedAt);
            waited = wait.toSeconds() + (wait.toNanosPart() > 0 ? 1 : 0);
        }
        return Math.addExact(waited, trackDeadlineSeconds);
    }
}
