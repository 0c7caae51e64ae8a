package org.carla.leaderboard.domain.record;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.carla.leaderboard.domain.status.SubmissionStatus;

/**
 * When a submission is stuck, as its record (and, where known, its run's Job) shows it: the rules of the "nothing
 * stuck" issue, in one place for whoever notices (ops-console lists them; the scheduled menders act on them). Each rule
 * says what would mend it; none acts.
 *
 * <ul>
 * <li>{@link Rule#NO_JOB}: SUBMITTED, its run not claimed by job-launcher ({@code launched_run} ≠ {@code run}) for
 * longer than {@link Bounds#noJob()} → publish the launch request again.</li>
 * <li>{@link Rule#NO_PROGRESS}: RUNNING with no progress (nor start) for longer than {@link Bounds#noProgress()} →
 * report it; {@link Rule#NO_PROGRESS_TOO_LONG} past {@link Bounds#failAfter()} → fail it with a message the
 * participant can read.</li>
 * <li>{@link Rule#FINAL_UNCONFIRMED}: a final status recorded and not confirmed by EvalAI
 * ({@code evalai_final_sent} false) for longer than {@link Bounds#unconfirmed()} → send it again.</li>
 * <li>{@link Rule#JOB_END_UNREPORTED}: not final, its run's Job ended (or is gone) for longer than
 * {@link Bounds#jobEndUnreported()} and the end not recorded ({@code job_ended_run} ≠ {@code run}) → report the end.</li>
 * </ul>
 */
public final class StuckRules {

    public enum Rule {
        NO_JOB("no Job for its run", "publish the launch request again"),
        NO_PROGRESS("running with no progress", "report it"),
        NO_PROGRESS_TOO_LONG("no progress for too long", "fail it with a message the participant can read"),
        FINAL_UNCONFIRMED("final status not confirmed by EvalAI", "send the final report again"),
        JOB_END_UNREPORTED("its Job ended but the end was not reported", "report the Job's end");

        private final String description;
        private final String mend;

        Rule(String description, String mend) {
            this.description = description;
            this.mend = mend;
        }

        public String description() {
            return description;
        }

        /** What mends it. */
        public String mend() {
            return mend;
        }
    }

    /** How long each state may last before it counts as stuck. */
    public record Bounds(Duration noJob, Duration noProgress, Duration failAfter, Duration unconfirmed,
            Duration jobEndUnreported) {

        public static Bounds defaults() {
            return new Bounds(Duration.ofMinutes(10), Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofMinutes(5),
                    Duration.ofMinutes(5));
        }
    }

    /**
     * What the rules read of a submission.
     *
     * @param status       the record's status; {@code null} when it holds none this code knows
     * @param run          the record's current run
     * @param launchedRun  the run job-launcher claimed ({@code launched_run}), 0 when none
     * @param jobEndedRun  the run whose Job's end was recorded ({@code job_ended_run}), 0 when none
     * @param statusSince  when the record took its status (its last {@code status_history} entry, else the submission
     *                     or resume time)
     * @param lastActivity the last progress time, else the start time of the run; {@code null} when neither
     * @param finalSent    whether EvalAI confirmed the final status ({@code evalai_final_sent})
     * @param endTime      the recorded end of the run; {@code null} when not reached
     * @param job          the run's Job as the cluster shows it; {@code null} when not looked at
     */
    public record Observed(SubmissionStatus status, int run, int launchedRun, int jobEndedRun, Instant statusSince,
            Instant lastActivity, boolean finalSent, Instant endTime, Job job) {
    }

    /** The run's Job in the cluster: still there and running, ended (with when), or gone. */
    public record Job(boolean exists, Instant endedAt) {

        public static Job active() {
            return new Job(true, null);
        }

        public static Job ended(Instant at) {
            return new Job(true, at);
        }

        public static Job absent() {
            return new Job(false, null);
        }
    }

    /** A stuck submission: which rule, since when it has been in that state, and for how long at {@code now}. */
    public record Finding(Rule rule, Instant since, Duration stuckFor) {
    }

    private StuckRules() {
    }

    /** The rule a submission breaks at {@code now}, the most urgent first; empty when it is not stuck. */
    public static Optional<Finding> check(Observed record, Instant now, Bounds bounds) {
        SubmissionStatus status = record.status();
        if (status == null) {
            return Optional.empty();
        }
        if (status.isTerminal()) {
            return !record.finalSent() ? older(Rule.FINAL_UNCONFIRMED, record.endTime(), now, bounds.unconfirmed())
                    : Optional.empty();
        }
        if (record.job() != null && record.launchedRun() == record.run() && record.jobEndedRun() != record.run()) {
            Instant ended = record.job().exists() ? record.job().endedAt() : record.statusSince();
            var unreported = older(Rule.JOB_END_UNREPORTED, ended, now, bounds.jobEndUnreported());
            if (unreported.isPresent()) {
                return unreported;
            }
        }
        if (status == SubmissionStatus.SUBMITTED && record.launchedRun() != record.run()) {
            return older(Rule.NO_JOB, record.statusSince(), now, bounds.noJob());
        }
        if (status == SubmissionStatus.RUNNING) {
            Instant since = record.lastActivity() != null ? record.lastActivity() : record.statusSince();
            var tooLong = older(Rule.NO_PROGRESS_TOO_LONG, since, now, bounds.failAfter());
            return tooLong.isPresent() ? tooLong : older(Rule.NO_PROGRESS, since, now, bounds.noProgress());
        }
        return Optional.empty();
    }

    private static Optional<Finding> older(Rule rule, Instant since, Instant now, Duration bound) {
        if (since == null) {
            return Optional.empty();
        }
        Duration stuckFor = Duration.between(since, now);
        return stuckFor.compareTo(bound) > 0 ? Optional.of(new Finding(rule, since, stuckFor)) : Optional.empty();
    }
}
