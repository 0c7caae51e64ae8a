package org.carla.leaderboard.launcher.service;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.record.StuckRules;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The stuck-submission rule {@value #RULE} as the cluster shows it: a Job that ended (or is being deleted) longer ago than
 * the domain's bound of that rule ({@link StuckRules.Rule#JOB_END_UNREPORTED}, {@link StuckRules.Bounds}) and whose
 * end is still not reported, so its submission cannot reach a final status — also a Job whose annotations were edited
 * into something unreadable, which no record shows. Counted by the reconcile on every pass and exposed as
 * {@code leaderboard_stuck_submissions{rule="unreported-job"}}, the metric every stuck rule shares.
 */
@ApplicationScoped
public class UnreportedJobs {

    public static final String METRIC = "leaderboard.stuck.submissions";
    public static final String RULE = "unreported-job";
    private static final Duration BOUND = StuckRules.Bounds.defaults().jobEndUnreported();

    private final AtomicInteger count = new AtomicInteger();
    private final MeterRegistry registry;
    private final Gauge gauge;

    UnreportedJobs(MeterRegistry registry) {
        this.registry = registry;
        this.gauge = Gauge.builder(METRIC, count, AtomicInteger::get).tag("rule", RULE)
                .description("Submissions stuck, by rule: " + RULE + " = Jobs ended and not reported")
                .register(registry);
    }

    /** A registry outliving this bean (an application restarted in one JVM) must not keep reading its count. */
    @PreDestroy
    void unregister() {
        registry.remove(gauge);
    }

    /** Whether this Job is stuck by the rule at {@code now}: ended over the bound ago, its end not reported. */
    public static boolean stuck(Job job, Instant now) {
        if (!JobEnd.ending(job) || JobMetadata.finishedReported(job)) {
            return false;
        }
        return JobEnd.endedAt(job).map(ended -> ended.plus(BOUND).isBefore(now)).orElse(true);
    }

    /** Counts the stuck Jobs among those the launcher watches; returns the count. */
    int count(Collection<Job> jobs, Instant now) {
        int stuck = (int) jobs.stream().filter(job -> stuck(job, now)).count();
        count.set(stuck);
        return stuck;
    }
}
