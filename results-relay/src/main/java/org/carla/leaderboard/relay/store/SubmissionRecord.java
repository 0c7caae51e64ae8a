package org.carla.leaderboard.relay.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.status.SubmissionStatus;

/**
 * A submission's record as the relay reads it ({@code domain.record.SubmissionTable}): the submission as ingest-service
 * recorded it, its current run and where that run stands.
 *
 * @param identity           who and what, built from the record (team name, challenge, phase, track); empty when the
 *                           record lacks one of them
 * @param teamId             the key's {@code team_id}
 * @param submissionId       the key's {@code submission_id}
 * @param run                the current run
 * @param status             {@code submission_status}; {@code null} when the record holds none this code knows
 * @param finalSent          whether EvalAI confirmed the current run's final status ({@code evalai_final_sent})
 * @param cancelRequestedRun the run the relay saw cancelled on EvalAI ({@code cancel_requested_run}), 0 when none
 * @param expectedRoutes     route records a complete run holds ({@code expected_routes}); empty when not recorded
 * @param workerPairs        worker pairs of the Job ({@code parallelization_workers}); empty when not recorded
 * @param instanceType       the node's instance type, {@code null} when not recorded
 * @param lastResultsDigest  the {@code results_digest} last relayed to EvalAI in this run, {@code null} when none
 * @param routesDone         routes done by the run's last believed report; empty before the first
 * @param submittedTime      EvalAI's {@code submitted_at} as recorded, {@code null} when not recorded
 * @param lastEnding         the {@code ending} of the run's last progress report, {@code null} while none ended
 * @param notUploaded        what logcopy's last report named as not uploaded
 * @param gpuHours           the GPU-hours of the runs that ended so far ({@code gpu_hours}), 0 when none
 * @param times              when the run started, last reported, took its status and ended, for the stuck rules
 * @param failureReason      the first line of a failed run's stderr as recorded ({@code failure_reason}), else
 *                           {@code null}
 * @param jobName            the Job of the run ({@code job_name}), {@code null} when not recorded
 * @param images             what the run's pod ran ({@code run_images}); empty before it started, or when the record's
 *                           images are of another run
 * @param pods               the run's pods ({@code parallelization_pods}); 1 when not recorded
 */
public record SubmissionRecord(Optional<SubmissionIdentity> identity, long teamId, String submissionId, int run,
        SubmissionStatus status, boolean finalSent, int cancelRequestedRun, OptionalInt expectedRoutes,
        OptionalInt workerPairs, String instanceType, String lastResultsDigest, OptionalInt routesDone, String submittedTime,
        String lastEnding, List<String> notUploaded, double gpuHours, RunTimes times, String failureReason,
        String jobName, Optional<RunImages> images, int pods) {

    /**
     * The run's times as recorded, each {@code null} when not reached or unreadable.
     *
     * @param started         {@code start_time}: the run's pod started running
     * @param lastProgress    {@code last_progress_time}: the run's last believed progress report
     * @param statusSince     the last {@code status_history} entry: when the record took its status
     * @param ended           {@code end_time}
     */
    public record RunTimes(Instant started, Instant lastProgress, Instant statusSince, Instant ended) {

        /** When the run last gave a sign of life: its last progress report, else its start. */
        public Instant lastActivity() {
            return lastProgress != null ? lastProgress : started;
        }
    }

    public SubmissionRecord {
        notUploaded = notUploaded == null ? List.of() : List.copyOf(notUploaded);
    }

    public boolean isTerminal() {
        return status != null && status.isTerminal();
    }

    public boolean is(SubmissionStatus other) {
        return status == other;
    }

    /** Whether the relay saw the current run cancelled on EvalAI. */
    public boolean cancelRequested() {
        return cancelRequestedRun == run;
    }
}
