package org.carla.leaderboard.console.service;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The backend's health in one answer: the queues, their dead letters, the stuck submissions, the GPU pods, and the
 * submissions finished per day with their GPU-hours.
 *
 * @param truncated leaderboards whose table held more records than one look reads
 * @param problems  what could not be read in this look
 */
@RegisterForReflection
public record BackendView(Instant at, List<QueueView> queues, List<SubmissionRow> stuck, GpuPods gpuPods,
        List<DayView> days, List<String> truncated, List<String> problems) {

    /**
     * A queue and its dead-letter queue. The age of the oldest message is known for the dead-letter queue only (from
     * the messages looked at: when each was dead-lettered); SQS gives it for a live queue through CloudWatch only.
     *
     * @param reasons {@code dead-letter-reason} → messages, over the dead letters looked at (at most the peek bound)
     */
    @RegisterForReflection
    public record QueueView(String name, Long visible, Long inFlight, Long delayed, Long deadLetters,
            Instant oldestDeadLetter, Map<String, Integer> reasons, String error) {
    }

    /** The submissions' pods by phase, and the GPUs they hold (Running) or wait for (Pending). */
    @RegisterForReflection
    public record GpuPods(int running, int pending, int gpusRunning, int gpusPending) {
    }

    /** One day (UTC) of ended submissions and the GPU-hours recorded for them. */
    @RegisterForReflection
    public record DayView(LocalDate day, int finished, int failed, int cancelled, double gpuHours) {
    }
}
