package org.carla.leaderboard.relay.service;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.SubmissionStatus;

/**
 * The final status of a run whose Job ended, decided from what a participant's code cannot forge alone:
 * <ol>
 * <li>CANCELLED only when the relay itself recorded the run's cancel ({@code cancel_requested_run}); a
 * {@code simulation.cancel} without it was written by someone else in the pod: FAILED, and the message says so. logcopy
 * never uploads a cancel file it did not write, so such a cancel reaches the relay as logcopy's last report, ending
 * {@code UNREQUESTED_CANCEL} (only ever a reason to fail, so a report from the pod may give it);</li>
 * <li>FINISHED needs every status file of the protocol (2N + 1 done files in each pod's folder) <em>and</em> complete results
 * ({@link ResultsAudit}): every expected route with one finished record and numbers a score can be; done files
 * without them: FAILED with a message naming what is missing, and, when routes were claimed and one gave up, the
 * route and how each of its attempts ended ({@link GaveUpRoutes});</li>
 * <li>anything else: FAILED, explained by the Job's end ({@code reason} empty).</li>
 * </ol>
 *
 * <p>{@code statusFiles}: each pod's, by completion index. {@code gaveUp} is read only for a run that failed so
 * ({@link GaveUpRoutes}).
 *
 * @param status the final status
 * @param reason why a FAILED run failed when the status files and results say it, rather than the Job's end (a
 *               phrase that follows "The submission failed: ")
 * @param shown  the checkpoint EvalAI is shown (results, stdout and metadata derive from it)
 */
record RunVerdict(SubmissionStatus status, Optional<String> reason, CheckpointFile shown) {

    static final String FORGED_CANCEL = "it was stopped by a cancel signal (simulation.cancel) that was not"
            + " requested: the submission was not cancelled on EvalAI.";

    static RunVerdict judge(boolean cancelRequested, boolean unrequestedCancel,
            List<? extends Collection<String>> statusFiles, int workerPairs, MergedResults results,
            Supplier<Optional<String>> gaveUp) {
        CheckpointFile shown = results.audit().map(ResultsAudit::shown).orElseGet(CheckpointFile::empty);
        if (cancelRequested) {
            return new RunVerdict(SubmissionStatus.CANCELLED, Optional.empty(), shown);
        }
        if (unrequestedCancel || statusFiles.stream().anyMatch(pod -> pod.contains(StatusFiles.SIMULATION_CANCEL))) {
            return failed(FORGED_CANCEL, shown);
        }
        if (statusFiles.isEmpty() || !statusFiles.stream().allMatch(pod -> StatusFiles.allDone(pod, workerPairs))) {
            return new RunVerdict(SubmissionStatus.FAILED, Optional.empty(), shown);
        }
        if (results.audit().isEmpty()) {
            return failed("every container reported done, but " + results.problem(), shown);
        }
        var audit = results.audit().get();
        if (!audit.complete()) {
            return failed("every container reported done, but " + String.join("; ", audit.problems()) + "."
                    + gaveUp.get().map(reason -> " A route could not be driven: " + reason + ".").orElse(""), shown);
        }
        return new RunVerdict(SubmissionStatus.FINISHED, Optional.empty(), shown);
    }

    private static RunVerdict failed(String reason, CheckpointFile shown) {
        return new RunVerdict(SubmissionStatus.FAILED, Optional.of(reason), shown);
    }

    /**
     * The merged checkpoint as the relay read it: audited, or why it could not be ({@code the merged results are
     * missing}, too large, not a results file).
     */
    record MergedResults(Optional<ResultsAudit> audit, String problem) {

        static MergedResults audited(ResultsAudit audit) {
            return new MergedResults(Optional.of(audit), null);
        }

        static MergedResults unreadable(String problem) {
            return new MergedResults(Optional.empty(), problem);
        }
    }
}
