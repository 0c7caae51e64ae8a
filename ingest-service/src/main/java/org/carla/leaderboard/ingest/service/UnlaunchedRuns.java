package org.carla.leaderboard.ingest.service;

import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.SubmissionAnnounced;
import org.carla.leaderboard.domain.record.StuckConfig;
import org.carla.leaderboard.domain.record.StuckMetrics;
import org.carla.leaderboard.domain.record.StuckRules;
import org.carla.leaderboard.domain.record.StuckRules.Rule;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.domain.evalai.EvalAiUnavailableException;
import org.carla.leaderboard.ingest.service.UnclaimedRecords.Unclaimed;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The stuck rule {@code unlaunched} ({@link StuckRules}): every {@code stuck.check-every}, each record SUBMITTED whose
 * run job-launcher has not claimed for longer than {@code stuck.unlaunched-after} is announced again through the
 * intake ({@link SubmissionIntake#decide}), which publishes its current run's launch request — or its not-launched
 * event, when that was the decision or EvalAI now shows it cancelled — exactly as the first time; job-launcher claims a
 * run once, so a duplicate request makes no second Job. Then {@code launch_requested_time} is noted, and the next
 * request of that run waits another whole bound. A launch request lost anywhere (dead-lettered, purged, refused while
 * a record was being written) is found so. Metrics: {@code leaderboard_stuck_submissions{rule="unlaunched"}} and
 * {@code leaderboard_stuck_mends_total{rule="unlaunched",mend="announced-again"}}.
 */
@ApplicationScoped
public class UnlaunchedRuns {

    static final String MEND = "announced-again";
    private static final Logger LOG = Logger.getLogger(UnlaunchedRuns.class);

    private final TrackCatalog catalog;
    private final UnclaimedRecords records;
    private final SubmissionIntake intake;
    private final StuckConfig config;
    private final StuckMetrics metrics;
    private final Clock clock;

    UnlaunchedRuns(TrackCatalog catalog, UnclaimedRecords records, SubmissionIntake intake, StuckConfig config,
            MeterRegistry registry, Clock clock) {
        this.catalog = catalog;
        this.records = records;
        this.intake = intake;
        this.config = config;
        this.metrics = new StuckMetrics(registry, Rule.UNLAUNCHED);
        this.clock = clock;
    }

    @Scheduled(identity = "stuck-unlaunched", every = "${stuck.check-every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void check() {
        Instant now = clock.instant();
        int stuck = 0;
        boolean evalAiAnswers = true;
        for (String table : tables()) {
            Iterable<Unclaimed> unclaimed;
            try {
                unclaimed = records.find(table);
            } catch (SdkException e) {
                LOG.warnf("stuck rule %s: cannot read table %s (%s); again in %s", Rule.UNLAUNCHED.label(), table,
                        e.getMessage(), config.checkEvery());
                continue;
            }
            for (Unclaimed record : unclaimed) {
                var finding = StuckRules.check(observed(record), now, config.bounds())
                        .filter(found -> found.rule() == Rule.UNLAUNCHED);
                if (finding.isEmpty()) {
                    continue;
                }
                stuck++;
                LOG.warnf("stuck rule %s: submission %s run %d SUBMITTED without a Job for %d s (since %s)%s",
                        Rule.UNLAUNCHED.label(), record.submissionId(), record.run(),
                        finding.get().stuckFor().toSeconds(), finding.get().since(),
                        evalAiAnswers ? "; announcing it again" : "; EvalAI is down, again at the next check");
                if (evalAiAnswers) {
                    evalAiAnswers = mend(table, record, now);
                }
            }
        }
        metrics.found(Rule.UNLAUNCHED, stuck);
    }

    /** Announces the record again; false when EvalAI did not answer (the other records wait for the next check). */
    private boolean mend(String table, Unclaimed record, Instant now) {
        try {
            var announced = new SubmissionAnnounced(record.challengePk(), record.phasePk(),
                    Long.parseLong(record.submissionId()), record.imageUri(), false);
            if (intake.decide(announced, now, now)) {
                // The bound counts from the publish, not from the check that found it.
                records.noteLaunchRequested(table, record, clock.instant());
                metrics.mended(Rule.UNLAUNCHED, MEND);
            }
            return true;
        } catch (EvalAiUnavailableException | TimeoutException e) {
            LOG.warnf("stuck rule %s: submission %s not announced again, EvalAI did not answer (%s); again in %s",
                    Rule.UNLAUNCHED.label(), record.submissionId(), e.getMessage(), config.checkEvery());
            return false;
        } catch (RuntimeException e) {
            // Refused for good (no image, unknown phase, not on EvalAI) or a passing AWS error: the gauge keeps it.
            LOG.warnf("stuck rule %s: submission %s not announced again: %s", Rule.UNLAUNCHED.label(),
                    record.submissionId(), e.getMessage());
            return true;
        }
    }

    private static StuckRules.Observed observed(Unclaimed record) {
        return new StuckRules.Observed(SubmissionStatus.SUBMITTED, record.run(), record.launchedRun(), 0,
                record.statusSince(), null, false, null, null, record.launchRequestedAt());
    }

    /** Each leaderboard's submissions table, once. */
    private Set<String> tables() {
        var tables = new LinkedHashSet<String>();
        catalog.leaderboards().values().forEach(leaderboard -> tables.add(leaderboard.submissionsTable()));
        return tables;
    }
}
