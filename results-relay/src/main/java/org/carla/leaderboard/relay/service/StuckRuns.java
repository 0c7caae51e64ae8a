package org.carla.leaderboard.relay.service;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.record.StuckConfig;
import org.carla.leaderboard.domain.record.StuckMetrics;
import org.carla.leaderboard.domain.record.StuckRules;
import org.carla.leaderboard.domain.record.StuckRules.Finding;
import org.carla.leaderboard.domain.record.StuckRules.Rule;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.relay.client.EvalAiClient;
import org.carla.leaderboard.relay.lease.Standby;
import org.carla.leaderboard.relay.service.IndexedRuns.Found;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;

/**
 * The relay's two stuck rules ({@link StuckRules}), each every {@code stuck.check-every} over the records found
 * through the tables' index by status ({@link SubmissionRecords#notOver}, {@link SubmissionRecords#unconfirmedFinals}:
 * a query per status, never a scan), each mend under the submission's lock ({@link SubmissionLocks}) on the record
 * read again, so it never races an event of the same submission and acts only while the record is still stuck in the
 * same run:
 * <ul>
 * <li>{@code no-progress}: a RUNNING run silent (no progress report, nor start) longer than
 * {@code stuck.no-progress-after} is marked once per silence ({@code no_progress_since} and a {@code status_history}
 * entry); past {@code stuck.no-progress-fail-after} it is FAILED with a message the participant reads
 * ({@link FinalReports#stalled}), and job-launcher deletes its Job since its record is final.</li>
 * <li>{@code unconfirmed-final}: a final status recorded longer than {@code stuck.unconfirmed-final-after} ago and not
 * confirmed by EvalAI is sent again until EvalAI shows it ({@link FinalReports#resend}).</li>
 * </ul>
 * Only the active relay runs them ({@link Standby}). Metrics: {@code leaderboard_stuck_submissions{rule}} (what the last check found) and
 * {@code leaderboard_stuck_mends_total{rule,mend}} ({@code marked}, {@code failed}, {@code final-sent}).
 */
@ApplicationScoped
public class StuckRuns {

    static final String MARKED = "marked";
    static final String FAILED = "failed";
    static final String FINAL_SENT = "final-sent";
    private static final Logger LOG = Logger.getLogger(StuckRuns.class);

    private final IndexedRuns runs;
    private final SubmissionRecords records;
    private final FinalReports finals;
    private final SubmissionLocks locks;
    private final EvalAiClient evalAi;
    private final EvalAiOutbox outbox;
    private final StuckConfig config;
    private final StuckMetrics metrics;
    private final Clock clock;

    StuckRuns(IndexedRuns runs, SubmissionRecords records, FinalReports finals, SubmissionLocks locks,
            EvalAiClient evalAi, EvalAiOutbox outbox, StuckConfig config, MeterRegistry registry, Clock clock) {
        this.runs = runs;
        this.records = records;
        this.finals = finals;
        this.locks = locks;
        this.evalAi = evalAi;
        this.outbox = outbox;
        this.clock = clock;
        this.config = config;
        this.metrics = new StuckMetrics(registry, Rule.NO_PROGRESS, Rule.UNCONFIRMED_FINAL);
    }

    @Scheduled(identity = "stuck-no-progress", every = "${stuck.check-every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Standby.class)
    void checkSilentRuns() {
        Instant now = clock.instant();
        int stuck = 0;
        for (Found found : find(Rule.NO_PROGRESS, records::notOver)) {
            if (found.record().is(SubmissionStatus.RUNNING) && finding(Rule.NO_PROGRESS, found.record(), now)
                    .isPresent()) {
                stuck++;
                locks.run(Long.parseLong(found.record().submissionId()), () -> mendSilence(found));
            }
        }
        metrics.found(Rule.NO_PROGRESS, stuck);
    }

    @Scheduled(identity = "stuck-unconfirmed-final", every = "${stuck.check-every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Standby.class)
    void checkUnconfirmedFinals() {
        Instant now = clock.instant();
        int stuck = 0;
        for (Found found : find(Rule.UNCONFIRMED_FINAL, records::unconfirmedFinals)) {
            var finding = finding(Rule.UNCONFIRMED_FINAL, found.record(), now);
            if (finding.isEmpty()) {
                continue;
            }
            stuck++;
            LOG.warnf("stuck rule %s: submission %s run %d %s recorded %d s ago (%s), not confirmed by EvalAI; EvalAI is"
                    + " read at the run's next turn, and it is sent again unless EvalAI shows it",
                    Rule.UNCONFIRMED_FINAL.label(), found.record().submissionId(), found.record().run(),
                    found.record().status(), finding.get().stuckFor().toSeconds(), finding.get().since());
            mendUnconfirmed(found);
        }
        metrics.found(Rule.UNCONFIRMED_FINAL, stuck);
    }

    private List<Found> find(Rule rule, Function<String, List<SubmissionRecord>> query) {
        return runs.find(query, (leaderboard, e) -> LOG.warnf("stuck rule %s: the records of %s cannot be read now"
                + " (%s); again in %s", rule.label(), leaderboard, e.getMessage(), config.checkEvery()));
    }

    private Optional<Finding> finding(Rule rule, SubmissionRecord record, Instant now) {
        var times = record.times();
        var observed = new StuckRules.Observed(record.status(), record.run(), 0, 0, times.statusSince(),
                times.lastActivity(), record.finalSent(), times.ended(), null);
        return StuckRules.check(observed, now, config.bounds()).filter(finding -> finding.rule() == rule);
    }

    /**
     * The record read again, still RUNNING in that run and still silent: marked, or failed past the fail bound. The
     * writes are conditional on the run, its status and its last progress time as read here.
     */
    private void mendSilence(Found found) {
        var seen = found.record();
        try {
            Instant now = clock.instant();
            var current = records.find(found.destination().table(), seen.teamId(), seen.submissionId())
                    .filter(record -> record.run() == seen.run() && record.is(SubmissionStatus.RUNNING));
            var finding = current.flatMap(record -> finding(Rule.NO_PROGRESS, record, now));
            if (finding.isEmpty() || current.get().identity().isEmpty()) {
                return;
            }
            var record = current.get();
            var silence = finding.get();
            if (silence.fail()) {
                LOG.warnf("stuck rule %s: submission %s run %d silent for %d s (since %s): failing it",
                        Rule.NO_PROGRESS.label(), record.submissionId(), record.run(), silence.stuckFor().toSeconds(),
                        silence.since());
                var report = finals.stalled(record, record.identity().get(), found.destination(), failure(silence));
                if (report.isPresent()) {
                    outbox.send(report.get());
                    metrics.mended(Rule.NO_PROGRESS, FAILED);
                }
                return;
            }
            String detail = "no progress for " + silence.stuckFor().toSeconds() + " s (stuck rule "
                    + Rule.NO_PROGRESS.label() + ")";
            if (records.recordSilence(found.destination().table(), record, silence.since(), detail, now)) {
                LOG.warnf("stuck rule %s: submission %s run %d silent for %d s (since %s); marked, failed after %s"
                        + " without progress", Rule.NO_PROGRESS.label(), record.submissionId(), record.run(),
                        silence.stuckFor().toSeconds(), silence.since(), config.noProgressFailAfter());
                metrics.mended(Rule.NO_PROGRESS, MARKED);
            }
        } catch (RuntimeException e) {
            evalAi.noteFailure(e);
            LOG.warnf("stuck rule %s: submission %s not mended now (%s); again in %s", Rule.NO_PROGRESS.label(),
                    seen.submissionId(), e.getMessage(), config.checkEvery());
        }
    }

    /** What the participant reads as the failure of a run that stopped reporting. */
    static String failure(Finding silence) {
        return "The submission failed: its evaluation reported no progress for " + silence.stuckFor().toMinutes()
                + " minutes (since " + silence.since() + "), so it was stopped. Its results so far are shown;"
                + " it can be resumed.";
    }

    /**
     * Under the submission's lock, the record read again, still final in that run and unconfirmed, and not already
     * waiting for its confirmation: its report composed again for the outbox, which reads EvalAI first.
     */
    private void mendUnconfirmed(Found found) {
        var seen = found.record();
        locks.run(Long.parseLong(seen.submissionId()), () -> {
            try {
                var current = records.find(found.destination().table(), seen.teamId(), seen.submissionId())
                        .filter(record -> record.run() == seen.run() && record.isTerminal() && !record.finalSent())
                        .filter(record -> !outbox.confirming(Long.parseLong(record.submissionId()), record.run()));
                if (current.isEmpty() || current.get().identity().isEmpty()) {
                    return;
                }
                var report = finals.resend(current.get(), current.get().identity().get(), found.destination());
                if (report.isPresent()) {
                    outbox.send(report.get());
                    metrics.mended(Rule.UNCONFIRMED_FINAL, FINAL_SENT);
                }
            } catch (RuntimeException e) {
                LOG.warnf("stuck rule %s: submission %s not mended now (%s); again in %s",
                        Rule.UNCONFIRMED_FINAL.label(), seen.submissionId(), e.getMessage(), config.checkEvery());
            }
        });
    }
}
