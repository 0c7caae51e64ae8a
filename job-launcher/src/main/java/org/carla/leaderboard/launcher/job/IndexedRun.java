package org.carla.leaderboard.launcher.job;

import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/**
 * A run of several pods (an Indexed Job) whose remaining pods have nothing left to do. A pod ends once its pairs find
 * no route left to claim in the run's ledger; when no other pod of the run ever ran, nothing is in flight either, so
 * the ledger is settled and an index still waiting for a node would claim nothing. The Job controller would keep the
 * Job until that index ran, up to the run's deadline. The rule holds only while no pod of the Job ever failed
 * ({@code status.failed} 0): a failed pod's claims return to the ledger, and its replacement is needed.
 */
public final class IndexedRun {

    private IndexedRun() {
    }

    /**
     * Why the Job's remaining indexes are not needed, when they are not: some index completed, none of the Job's pods
     * failed, and no pod of any other index ever started ({@code pods}: every pod of the Job seen). Empty otherwise.
     */
    public static Optional<String> routesDoneBeforePodsRan(Job job, List<Pod> pods) {
        if (job.getSpec() == null || !"Indexed".equals(job.getSpec().getCompletionMode())
                || job.getSpec().getCompletions() == null || job.getStatus() == null) {
            return Optional.empty();
        }
        Integer failed = job.getStatus().getFailed();
        var completed = completedIndexes(job.getStatus().getCompletedIndexes());
        if (failed != null && failed > 0 || completed.isEmpty()) {
            return Optional.empty();
        }
        var waiting = new TreeSet<Integer>();
        for (int index = 0; index < job.getSpec().getCompletions(); index++) {
            if (completed.contains(index)) {
                continue;
            }
            int i = index;
            if (pods.stream().anyMatch(pod -> PodSpans.index(pod).filter(p -> p == i).isPresent()
                    && PodStart.of(pod).isPresent())) {
                return Optional.empty();
            }
            waiting.add(index);
        }
        if (waiting.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("index " + completed + " ended with the route ledger settled while index " + waiting
                + " never ran: nothing is left for it to claim");
    }

    /**
     * The Job controller's {@code status.completedIndexes}: {@code 1,3-5,7}, ranges of three or more; empty for
     * {@code null} or anything else.
     */
    static TreeSet<Integer> completedIndexes(String text) {
        var indexes = new TreeSet<Integer>();
        if (text == null || text.isBlank()) {
            return indexes;
        }
        for (String part : text.split(",")) {
            var range = part.trim().split("-", -1);
            try {
                int from = Integer.parseInt(range[0]);
                int to = range.length == 2 ? Integer.parseInt(range[1]) : from;
                if (range.length > 2 || from < 0 || to < from || to - from > 100_000) {
                    return new TreeSet<>();
                }
                for (int i = from; i <= to; i++) {
                    indexes.add(i);
                }
            } catch (NumberFormatException e) {
                return new TreeSet<>();
            }
        }
        return indexes;
    }
}
