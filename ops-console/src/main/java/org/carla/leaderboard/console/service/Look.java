package org.carla.leaderboard.console.service;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.console.SubmissionRecord;
import org.carla.leaderboard.console.client.Cluster.JobView;
import org.carla.leaderboard.console.client.Cluster.PodView;

/**
 * One look at the backend: the recent records of every leaderboard, the submissions' Jobs and pods, and what could not
 * be read (a source that failed leaves its part empty and says so, the rest is still shown).
 *
 * @param truncated leaderboards whose table held more items than one look reads
 */
public record Look(Instant at, List<SubmissionRecord> records, List<String> truncated, List<JobView> jobs,
        List<PodView> pods, List<String> problems) {

    public Look {
        records = List.copyOf(records);
        truncated = List.copyOf(truncated);
        jobs = List.copyOf(jobs);
        pods = List.copyOf(pods);
        problems = List.copyOf(problems);
    }

    /** The Job of the record's current run: by the record's Job name, else by submission and run labels. */
    public Optional<JobView> job(SubmissionRecord record) {
        if (record.jobName() != null) {
            var byName = jobs.stream().filter(job -> job.name().equals(record.jobName())).findFirst();
            if (byName.isPresent()) {
                return byName;
            }
        }
        return jobs.stream().filter(job -> record.submissionId().equals(job.submissionId())
                && (job.run() == null || job.run() == record.run())).findFirst();
    }

    /** The pod of that Job (the newest, when a Job made several). */
    public Optional<PodView> pod(JobView job) {
        return allPods(job).stream().reduce(Look::newer);
    }

    /**
     * The pods of that Job, the newest of each completion index, by index: one in a run of one pod, one per index in a
     * run of several.
     */
    public List<PodView> podsByIndex(JobView job) {
        var newest = new java.util.TreeMap<Integer, PodView>();
        allPods(job).forEach(pod -> newest.merge(pod.index() == null ? -1 : pod.index(), pod, Look::newer));
        return List.copyOf(newest.values());
    }

    /** Every pod of that Job the API still has, replaced ones included. */
    public List<PodView> allPods(JobView job) {
        return pods.stream().filter(pod -> job.name().equals(pod.jobName())).toList();
    }

    /** The later started of two pods; one that has not started yet counts as the newer. */
    private static PodView newer(PodView a, PodView b) {
        return a.startedAt() == null || b.startedAt() != null && b.startedAt().isAfter(a.startedAt()) ? b : a;
    }

    /** Whether the cluster could be read in this look (else no Job means "unknown", not "gone"). */
    public boolean clusterRead() {
        return problems.stream().noneMatch(problem -> problem.startsWith(Looks.CLUSTER));
    }
}
