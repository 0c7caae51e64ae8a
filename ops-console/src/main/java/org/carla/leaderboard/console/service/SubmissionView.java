package org.carla.leaderboard.console.service;

import java.util.List;
import java.util.Map;

import org.carla.leaderboard.console.SubmissionRecord.StatusChange;
import org.carla.leaderboard.console.client.Cluster.JobView;
import org.carla.leaderboard.console.client.Cluster.PodView;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One submission in detail.
 *
 * @param history       every status change with its time, oldest first
 * @param evalAiUpdates the status changes results-relay made, each of which it sent to EvalAI
 * @param evalAiStatus  EvalAI's status right now ({@code unreachable} when EvalAI did not answer)
 * @param accuracies    the accuracies last sent to EvalAI ({@code evalai/results.json} in S3), snake case
 * @param failureReason why the run failed, as the participant was told
 * @param cancel        why cancelling is not offered now (refused, or done already), {@code null} when it can be
 * @param resume        why resuming is not offered now (refused, or done already), {@code null} when it can be
 * @param routes        the current run's route attempts when its routes are claimed (the route ledger), else empty
 * @param whatRan       the current run's images by digest and its software's versions; {@code null} before its first
 *                      pod started
 */
@RegisterForReflection
public record SubmissionView(SubmissionRow summary, String instanceType, Integer workerPairs, String phase,
        String challengeId, int resumes, List<StatusChange> history, List<RunView> runs, List<PairState> pairs,
        List<ContainerLog> logs, List<StatusChange> evalAiUpdates, String evalAiStatus, Map<String, Double> accuracies,
        String failureReason, JobView job, PodView pod, String cancel, String resume, List<String> problems,
        List<RouteAttempt> routes, WhatRan whatRan, List<PodView> pods) {

    /**
     * The last lines of one container's log, as uploaded to S3; {@code pod} the completion index of its pod in a run of
     * several pods ({@code null} in a run of one).
     */
    @RegisterForReflection
    public record ContainerLog(String container, String tail, Integer pod) {
    }
}
