package org.carla.leaderboard.launcher.record;

import java.util.Optional;

import org.carla.leaderboard.domain.status.SubmissionStatus;

/**
 * What job-launcher reads of a submission's record: the current run, its status, and what happened to the runs so
 * far (0 where nothing did). The rules of a launch request are here, once.
 *
 * @param run                the record's current run
 * @param launchedRun        the last run job-launcher claimed for a Job
 * @param jobEndedRun        the last run whose Job ended and was reported
 * @param cancelRequestedRun the last run results-relay saw cancelled on EvalAI
 */
public record RunRecord(int run, Optional<SubmissionStatus> status, int launchedRun, int jobEndedRun,
        int cancelRequestedRun) {

    /** Refusal reasons of a launch request (metric tag {@code reason}). */
    public static final String UNKNOWN_SUBMISSION = "unknown-submission";
    public static final String OTHER_RUN = "other-run";
    public static final String RUN_ENDED = "run-ended";
    public static final String TERMINAL = "terminal";

    /** What to do with a launch request of a run. */
    public enum Launch {
        /** The run is the current one and nobody claimed it yet: claim it, then create its Job. */
        CLAIM,
        /** Claimed already (a repeated request, or a crash between the claim and the creation): create if missing. */
        CLAIMED,
        /** Cancelled before its Job was made: the run ends without a Job. */
        CANCELLED,
        /** Never: the run is not the current one, has ended, or the record is final or missing. */
        REFUSED
    }

    public record Verdict(Launch launch, String refusal, String explanation) {

        static Verdict of(Launch launch) {
            return new Verdict(launch, null, null);
        }

        static Verdict refused(String reason, String explanation) {
            return new Verdict(Launch.REFUSED, reason, explanation);
        }
    }

    /** The verdict on a launch request of {@code requestRun}; {@code record} empty: the submission has no record. */
    public static Verdict verdict(Optional<RunRecord> record, int requestRun) {
        if (record.isEmpty()) {
            return Verdict.refused(UNKNOWN_SUBMISSION, "the submission has no record");
        }
        RunRecord current = record.get();
        if (current.run != requestRun) {
            return Verdict.refused(OTHER_RUN, "the record's current run is " + current.run);
        }
        if (current.jobEndedRun >= requestRun) {
            return Verdict.refused(RUN_ENDED, "the run's Job has ended");
        }
        if (current.terminal()) {
            return Verdict.refused(TERMINAL, "the record is final (" + current.status.get() + ")");
        }
        if (current.cancelRequestedRun >= requestRun) {
            return Verdict.of(Launch.CANCELLED);
        }
        return Verdict.of(current.launchedRun >= requestRun ? Launch.CLAIMED : Launch.CLAIM);
    }

    public boolean terminal() {
        return status.filter(SubmissionStatus::isTerminal).isPresent();
    }

    /** Whether run {@code run} was cancelled on EvalAI. */
    public boolean cancelRequested(int run) {
        return cancelRequestedRun >= run;
    }
}
