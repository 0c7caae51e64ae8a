package org.carla.leaderboard.localstack.kubernetes;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Job controller's {@code activeDeadlineSeconds} for one active spell of a Job: counted from
 * {@code status.startTime}, which is set when the Job becomes active (created unsuspended, or resumed), so the time a
 * pod waits Pending for capacity counts; a change of the deadline on the live Job reschedules it from the same start
 * (the controller requeues the Job then). Used on its pod's thread only.
 */
final class ActiveDeadline {

    private final ScheduledExecutorService thread;
    private final Runnable exceeded;
    private Instant startTime;
    private Long seconds;
    private ScheduledFuture<?> timer;

    ActiveDeadline(ScheduledExecutorService thread, Runnable exceeded) {
        this.thread = thread;
        this.exceeded = exceeded;
    }

    /** From the Job's start time, with its deadline (none when null). */
    void arm(Instant jobStartTime, Long deadlineSeconds) {
        startTime = jobStartTime;
        seconds = deadlineSeconds;
        reschedule();
    }

    /** The Job's {@code spec.activeDeadlineSeconds} now: a new value counts from the same start time. */
    void change(Long deadlineSeconds) {
        if (startTime == null || Objects.equals(seconds, deadlineSeconds)) {
            return;
        }
        seconds = deadlineSeconds;
        reschedule();
    }

    void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void reschedule() {
        cancel();
        if (seconds == null) {
            return;
        }
        long delay = Math.max(0, Duration.between(Instant.now(), startTime.plusSeconds(seconds)).toMillis());
        timer = thread.schedule(exceeded, delay, TimeUnit.MILLISECONDS);
    }
}
