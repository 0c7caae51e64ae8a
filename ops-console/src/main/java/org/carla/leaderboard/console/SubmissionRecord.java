package org.carla.leaderboard.console;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.status.SubmissionStatus;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * A submission as its leaderboard's table holds it ({@code domain.record.SubmissionTable}), read tolerantly: an
 * attribute not written yet (or {@code "-"}) is {@code null}, a status this code does not know is {@code null} with
 * the text kept in {@code statusText}.
 *
 * @param images   what the pods of a run ran, by digest ({@code run_images}; {@code null} when not written yet)
 * @param versions the evaluation software of a run ({@code run_versions}; {@code null} until its final report)
 * @param pods     the pods of each run ({@code parallelization_pods}; 1 when not written, the seeds' layout)
 */
@RegisterForReflection
public record SubmissionRecord(String leaderboard, String teamId, String submissionId, String teamName, String track,
        String phase, String challengeId, SubmissionStatus status, String statusText, int run, int launchedRun,
        int jobEndedRun, int resumes, String jobName, String instanceType, Integer workerPairs, Instant submittedTime,
        Instant resumedTime, Instant launchedTime, Instant startTime, Instant endTime, Instant lastProgressTime,
        Integer routesDone, Integer routesTotal, Double drivingScore, String failureReason, Double gpuHours,
        boolean finalSent, int cancelRequestedRun, List<StatusChange> history, RunImages images,
        RunVersions versions, int pods) {

    public SubmissionRecord {
        history = history == null ? List.of() : List.copyOf(history);
        pods = Math.max(1, Math.min(pods, SubmissionLayout.MAX_PODS));
    }

    /** One entry of {@code status_history}. */
    @RegisterForReflection
    public record StatusChange(Instant at, int run, String status, String by, String detail) {
    }

    /** When the record took its current status: its last history entry, else the resume or submission time. */
    public Instant statusSince() {
        for (int i = history.size() - 1; i >= 0; i--) {
            if (history.get(i).at() != null) {
                return history.get(i).at();
            }
        }
        return resumedTime != null ? resumedTime : submittedTime;
    }

    /** When the current run began: its resume, else the submission. */
    public Instant runSince() {
        return resumedTime != null && run > 1 ? resumedTime : submittedTime;
    }

    /**
     * How long the current run waited for capacity: from when its Job was made until its pod ran (until the run's end
     * if it never ran, or now while it still waits); {@code null} before its Job was made.
     */
    public Duration waitingForCapacity(Instant now) {
        if (launchedTime == null) {
            return null;
        }
        Instant started = runStart();
        Instant to = started != null ? started : terminal() ? endTime : now;
        return to == null || to.isBefore(launchedTime) ? null : Duration.between(launchedTime, to);
    }

    /** How long the current run's pod has run: from its start to the run's end, or to now. */
    public Duration running(Instant now) {
        Instant started = runStart();
        if (started == null) {
            return null;
        }
        Instant to = terminal() && endTime != null ? endTime : now;
        return to.isBefore(started) ? Duration.ZERO : Duration.between(started, to);
    }

    /** The start of the current run's pod; an earlier run's start time (before this run's Job) does not count. */
    public Instant runStart() {
        if (startTime == null || launchedTime != null && startTime.isBefore(launchedTime)) {
            return null;
        }
        return startTime;
    }

    public boolean terminal() {
        return status != null && status.isTerminal();
    }
}
