package org.carla.leaderboard.launcher.service;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.record.StuckConfig;
import org.carla.leaderboard.domain.record.StuckRules;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.micrometer.core.instrument.Gauge;
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

    private static final String RULE = StuckRules.Rule.UNREPORTED_JOB.label();

    private final AtomicInteger count = new AtomicInteger();
    private final MeterRegistry registry;
    private final Gauge gauge;

    private final Duration bound;

    UnreportedJobs(MeterRegistry registry, StuckConfig stuck) {
        this.registry = registry;
        this.bound = stuck.unreportedJobAfter();
        this.gauge = Gauge.builder(StuckRules.GAUGE, count, AtomicInteger::get).tag(StuckRules.RULE_TAG, RULE)
                .description("Submissions stuck, by rule: " + RULE + " = Jobs ended and not reported")
                .register(registry);
    }

    /** A registry outliving this bean (an application restarted in one JVM) must not keep reading its count. */
    @PreDestroy
    void unregister() {
        registry.remove(gauge);
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
        count.set(stuck);
        return stuck;
    }
}
