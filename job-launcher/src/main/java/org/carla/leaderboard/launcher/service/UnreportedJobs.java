package org.carla.leaderboard.launcher.service;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.record.StuckConfig;
import org.carla.leaderboard.domain.record.StuckMetrics;
import org.carla.leaderboard.domain.record.StuckRules;
import org.carla.leaderboard.domain.record.StuckRules.Rule;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The stuck-submission rule {@code unreported-job} as the cluster shows it: a Job that ended (or is being deleted) longer
 * ago than the bound of that rule ({@link StuckRules.Rule#UNREPORTED_JOB}, {@code stuck.unreported-job-after}) and whose
 * end is still not reported, so its submission cannot reach a final status — also a Job whose annotations were edited
 * into something unreadable, which no record shows. Counted by the reconcile on every pass and exposed as
 * {@code leaderboard_stuck_submissions{rule="unreported-job"}}, the metric every stuck rule shares.
 */
@ApplicationScoped
public class UnreportedJobs {

    private final StuckMetrics metrics;
    private final Duration bound;

    UnreportedJobs(MeterRegistry registry, StuckConfig stuck) {
        this.metrics = new StuckMetrics(registry, Rule.UNREPORTED_JOB);
        this.bound = stuck.unreportedJobAfter();
    }

    /** Whether this Job is stuck by the rule at {@code now}: ended over the bound ago, its end not reported. */
    boolean stuck(Job job, Instant now) {
        if (!JobEnd.ending(job) || JobMetadata.finishedReported(job)) {
            return false;
        }
        return JobEnd.endedAt(job).map(ended -> ended.plus(bound).isBefore(now)).orElse(true);
    }

    /** Counts the stuck Jobs among those the launcher watches; returns the count. */
    int count(Collection<Job> jobs, Instant now) {
        int stuck = (int) jobs.stream().filter(job -> stuck(job, now)).count();
        metrics.found(Rule.UNREPORTED_JOB, stuck);
        return stuck;
    }
}
