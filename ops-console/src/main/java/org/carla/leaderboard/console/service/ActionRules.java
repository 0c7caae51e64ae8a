package org.carla.leaderboard.console.service;

import java.util.Optional;

import org.carla.leaderboard.console.SubmissionRecord;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.carla.leaderboard.domain.status.SubmissionStatus;

/**
 * When an operator's action makes sense, from our record and EvalAI's status (either may be unknown: {@code null}).
 * An action already done is {@link Verdict#DONE_ALREADY} (repeating it changes nothing); one that makes no sense is
 * {@link Verdict#REFUSED} with the reason in words.
 */
public final class ActionRules {

    public enum Verdict {
        ALLOWED,
        DONE_ALREADY,
        REFUSED
    }

    public record Decision(Verdict verdict, String reason) {

        static Decision allowed() {
            return new Decision(Verdict.ALLOWED, null);
        }

        /** Why the page offers no button for it (refused, or done already); empty when it can be taken. */
        public Optional<String> unavailable() {
            return verdict == Verdict.ALLOWED ? Optional.empty() : Optional.of(reason);
        }
    }

    private ActionRules() {
    }

    /** Cancel: anything not ended yet, as a participant's cancel on EvalAI would. */
    public static Decision cancel(String submissionId, SubmissionRecord record, EvalAiStatus evalAi) {
        if (evalAi == EvalAiStatus.CANCELLED || record != null && record.status() == SubmissionStatus.CANCELLED) {
            return new Decision(Verdict.DONE_ALREADY, "submission " + submissionId + " is already cancelled");
        }
        if (record != null && record.terminal()) {
            return new Decision(Verdict.REFUSED, "submission " + submissionId + " is " + record.status()
                    + ": a submission that has ended cannot be cancelled");
        }
        if (evalAi == EvalAiStatus.FINISHED || evalAi == EvalAiStatus.FAILED) {
            return new Decision(Verdict.REFUSED, "submission " + submissionId + " is " + evalAi.value()
                    + " on EvalAI: a submission that has ended cannot be cancelled");
        }
        return Decision.allowed();
    }

    /** Resume: only a failed submission, as EvalAI allows it (a new run that keeps the routes already driven). */
    public static Decision resume(String submissionId, SubmissionRecord record, EvalAiStatus evalAi) {
        if (evalAi == EvalAiStatus.RESUMING) {
            return new Decision(Verdict.DONE_ALREADY, "submission " + submissionId + " is already being resumed");
        }
        if (record != null && record.status() != SubmissionStatus.FAILED) {
            String status = record.status() != null ? record.status().name() : String.valueOf(record.statusText());
            return new Decision(Verdict.REFUSED, "submission " + submissionId + " is " + status
                    + ": only a failed submission can be resumed");
        }
        if (evalAi != null && evalAi != EvalAiStatus.FAILED) {
            return new Decision(Verdict.REFUSED, "submission " + submissionId + " is " + evalAi.value()
                    + " on EvalAI: EvalAI resumes only a failed submission"
                    + (record != null ? " (its final report may not be confirmed yet)" : ""));
        }
        return Decision.allowed();
    }
}
