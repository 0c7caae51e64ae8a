package org.carla.leaderboard.console.service;

import java.time.Instant;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One submission in the list: who, what, which run, how far, how long it waited and ran, what it cost, where its Job
 * is, and whether it is stuck.
 *
 * @param waitingSeconds time the current run waited for capacity (its pod Pending)
 * @param runningSeconds time the current run's pod has run
 * @param gpuHours       the GPU-hours of the ended runs (recorded) plus the current run's so far
 * @param stuck          the stuck rule it breaks ({@code StuckRules.Rule} label: {@code unlaunched}, ...), else {@code null}
 */
@RegisterForReflection
public record SubmissionRow(String leaderboard, String teamId, String teamName, String submissionId, String track,
        int run, String status, Integer routesDone, Integer routesTotal, Double drivingScore, Long waitingSeconds,
        Long runningSeconds, Double gpuHours, String jobName, String jobState, String podPhase,
        Instant lastProgressTime, Instant submittedTime, Instant endTime, String stuck, String stuckReason,
        String failureReason) {
}
