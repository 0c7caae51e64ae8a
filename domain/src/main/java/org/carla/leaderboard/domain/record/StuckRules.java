package org.carla.leaderboard.domain.record;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

import org.carla.leaderboard.domain.status.SubmissionStatus;

/**
 * When a submission is stuck, as its record (and, where known, its run's Job) shows it: the four rules of "nothing
 * stuck", their names, their bounds and who mends each, in one place for every service that mends and for ops-console,
 * which lists them. Each rule is a gauge {@code leaderboard_stuck_submissions{rule}} ({@link #GAUGE}) in the service
 * that mends it, and each mend counts in {@code leaderboard_stuck_mends_total{rule,mend}} ({@link #MENDS}). Every mend
 * is idempotent with the run identity: it acts on the record's current run, conditionally on the record still being
 * stuck, and what it repeats (a launch request, a final report) is taken once per run by whoever receives it.
 *
 * <ul>
 * <li>{@link Rule#UNLAUNCHED} ({@code unlaunched}, ingest-service): SUBMITTED and the run not claimed by job-launcher
 * ({@code launched_run} ≠ {@code run}) longer than {@link Bounds#unlaunched()} after its launch request was last
 * published → the run's launch request is published again (job-launcher claims a run once: a duplicate is harmless).</li>
 * <li>{@link Rule#NO_PROGRESS} ({@code no-progress}, results-relay): RUNNING with no progress report (nor start) for
 * longer than {@link Bounds#noProgress()} → a status-history entry and the gauge; past
 * {@link Bounds#noProgressFail()} → FAILED with a message the participant reads, which job-launcher sees and deletes
 * the run's Job for (it deletes the Job of a run whose record is final).</li>
 * <li>{@link Rule#UNCONFIRMED_FINAL} ({@code unconfirmed-final}, results-relay): a final status recorded and not
 * confirmed by EvalAI ({@code evalai_final_sent} false) longer than {@link Bounds#unconfirmedFinal()} → the recorded
 * report is sent again, until EvalAI shows it.</li>
 * <li>{@link Rule#UNREPORTED_JOB} ({@code unreported-job}, job-launcher): not final, its run's Job ended (or gone)
 * longer than {@link Bounds#unreportedJob()} ago and the end not recorded ({@code job_ended_run} ≠ {@code run}) → the
 * Job's end is reported.</li>
 * </ul>
 */
public final class StuckRules {

    /** The gauge of stuck submissions, tagged {@link #RULE_TAG}: {@code leaderboard_stuck_submissions{rule}}. */
    public static final String GAUGE = "leaderboard.stuck.submissions";
    /** The counter of mends, tagged {@link #RULE_TAG} and {@link #MEND_TAG}: {@code leaderboard_stuck_mends_total}. */
    public static final String MENDS = "leaderboard.stuck.mends";
    public static final String RULE_TAG = "rule";
    public static final String MEND_TAG = "mend";

    // The bounds' defaults (ISO-8601), one place for StuckConfig's @WithDefault and Bounds.defaults(); why each, in
    // the README's "Stuck submissions".
    /** How often each service looks for the submissions its rules mend. */
    public static final String CHECK_EVERY = "PT2M";
    /** job-launcher takes a launch request in seconds; ten minutes is a launcher gone or a request lost. */
    public static final String UNLAUNCHED_AFTER = "PT10M";
    /** Three of logcopy's 5-minute heartbeats missed: one late message or a relay restart is not enough. */
    public static final String NO_PROGRESS_AFTER = "PT15M";
    /**
     * Two hours of silence: longer than a route of tens of minutes, an outage of the progress queue or of the relay
     * ridden out, and the cancel-check and reconcile cadences many times over; short against the 48-hour deadline.
     */
    public static final String NO_PROGRESS_FAIL_AFTER = "PT2H";
    /** The relay's own send-and-confirm takes under a minute, retried by its message: five minutes is a lost message. */
    public static final String UNCONFIRMED_FINAL_AFTER = "PT5M";
    /** job-launcher reports an end within seconds and reconciles every 30 s: five minutes is a report that failed. */
    public static final String UNREPORTED_JOB_AFTER = "PT5M";

    public enum Rule {
        UNLAUNCHED("ingest-service", "no Job for its run", "publish the run's launch request again"),
        NO_PROGRESS("results-relay", "running with no progress",
                "report it; past the longer bound, fail it with a message the participant can read"),
        UNCONFIRMED_FINAL("results-relay", "final status not confirmed by EvalAI", "send the final report again"),
        UNREPORTED_JOB("job-launcher", "its Job ended but the end was not reported", "report the Job's end");

        private final String mender;
        private final String description;
        private final String mend;

        Rule(String mender, String description, String mend) {
            this.mender = mender;
            this.description = description;
            this.mend = mend;
        }

        /** The rule's name in the metric's {@code rule} tag, the logs and the alarms: {@code no-progress}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** The service that mends it. */
        public String mender() {
            return mender;
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
    public record Bounds(Duration unlaunched, Duration noProgress, Duration noProgressFail, Duration unconfirmedFinal,
            Duration unreportedJob) {

        public Bounds {
            if (noProgressFail.compareTo(noProgress) <= 0) {
                throw new IllegalArgumentException("the no-progress fail bound (" + noProgressFail
                        + ") must be longer than its report bound (" + noProgress + ")");
            }
        }

        public static Bounds defaults() {
            return new Bounds(Duration.parse(UNLAUNCHED_AFTER), Duration.parse(NO_PROGRESS_AFTER),
                    Duration.parse(NO_PROGRESS_FAIL_AFTER), Duration.parse(UNCONFIRMED_FINAL_AFTER),
                    Duration.parse(UNREPORTED_JOB_AFTER));
        }
    }

    /**
     * What the rules read of a submission.
     *
     * @param status            the record's status; {@code null} when it holds none this code knows
     * @param run               the record's current run
     * @param launchedRun       the run job-launcher claimed ({@code launched_run}), 0 when none
     * @param jobEndedRun       the run whose Job's end was recorded ({@code job_ended_run}), 0 when none
     * @param statusSince       when the record took its status (its last {@code status_history} entry, else the
     *                          submission or resume time)
     * @param lastActivity      the last progress time, else the start time of the run; {@code null} when neither
     * @param finalSent         whether EvalAI confirmed the final status ({@code evalai_final_sent})
     * @param endTime           the recorded end of the run; {@code null} when not reached
     * @param job               the run's Job as the cluster shows it; {@code null} when not looked at
     * @param launchRequestedAt when ingest-service last published the run's launch request again
     *                          ({@code launch_requested_time}); {@code null} when never
     */
    public record Observed(SubmissionStatus status, int run, int launchedRun, int jobEndedRun, Instant statusSince,
            Instant lastActivity, boolean finalSent, Instant endTime, Job job, Instant launchRequestedAt) {

        /** A record not mended yet for {@link Rule#UNLAUNCHED}. */
        public Observed(SubmissionStatus status, int run, int launchedRun, int jobEndedRun, Instant statusSince,
                Instant lastActivity, boolean finalSent, Instant endTime, Job job) {
            this(status, run, launchedRun, jobEndedRun, statusSince, lastActivity, finalSent, endTime, job, null);
        }
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

    /**
     * A stuck submission: which rule, since when it has been in that state, for how long at {@code now}, and, for
     * {@link Rule#NO_PROGRESS}, whether it is past the bound that fails it.
     */
    public record Finding(Rule rule, Instant since, Duration stuckFor, boolean fail) {

        /** What mends it now. */
        public String mend() {
            if (rule == Rule.NO_PROGRESS) {
                return fail ? "fail it with a message the participant can read" : "report it";
            }
            return rule.mend();
        }
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
            if (record.finalSent()) {
                return Optional.empty();
            }
            Instant recorded = record.statusSince() != null ? record.statusSince() : record.endTime();
            return older(Rule.UNCONFIRMED_FINAL, recorded, now, bounds.unconfirmedFinal());
        }
        if (record.job() != null && record.launchedRun() == record.run() && record.jobEndedRun() != record.run()) {
            Instant ended = record.job().exists() ? record.job().endedAt() : record.statusSince();
            var unreported = older(Rule.UNREPORTED_JOB, ended, now, bounds.unreportedJob());
            if (unreported.isPresent()) {
                return unreported;
            }
        }
        if (status == SubmissionStatus.SUBMITTED && record.launchedRun() != record.run()) {
            Instant since = latest(record.statusSince(), record.launchRequestedAt());
            return older(Rule.UNLAUNCHED, since, now, bounds.unlaunched());
        }
        if (status == SubmissionStatus.RUNNING) {
            Instant since = record.lastActivity() != null ? record.lastActivity() : record.statusSince();
            return older(Rule.NO_PROGRESS, since, now, bounds.noProgress()).map(finding -> new Finding(finding.rule(),
                    finding.since(), finding.stuckFor(), finding.stuckFor().compareTo(bounds.noProgressFail()) > 0));
        }
        return Optional.empty();
    }

    private static Instant latest(Instant a, Instant b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        return a.isAfter(b) ? a : b;
    }

    private static Optional<Finding> older(Rule rule, Instant since, Instant now, Duration bound) {
        if (since == null) {
            return Optional.empty();
        }
        Duration stuckFor = Duration.between(since, now);
        return stuckFor.compareTo(bound) > 0 ? Optional.of(new Finding(rule, since, stuckFor, false))
                : Optional.empty();
    }
}
