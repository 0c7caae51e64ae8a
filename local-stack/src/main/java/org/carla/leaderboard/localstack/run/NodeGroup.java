package org.carla.leaderboard.localstack.run;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.ToLongFunction;
import java.util.logging.Logger;

import org.carla.leaderboard.localstack.kubernetes.LocalJobRunner;

/**
 * The GPU node group of the local run's cluster, played for the scenarios that wait for capacity: once the pods of
 * the submissions made before them are placed, it is full and the autoscaler adds no node (GPU capacity 0, which
 * stops nothing that runs; pods are placed in creation order, so nothing made later passes them). It grows again
 * once every CAPACITY submission's pod has waited longer than its track's deadline and every CANCEL_PENDING
 * submission's Job is gone — or, so that a missing behaviour shows as a wrong outcome rather than a run that never
 * ends, once it was held {@link #LONGEST_EXTRA_HOLD} longer than the longest CAPACITY deadline (a cancel reaches a
 * waiting pod within the relay's cancel check and the launcher's reconcile, a minute and a half by default).
 */
final class NodeGroup {

    private static final Logger LOG = Logger.getLogger(NodeGroup.class.getName());
    /** How much longer than its deadline a CAPACITY pod waits before the node group grows. */
    static final Duration PAST_DEADLINE = Duration.ofSeconds(10);
    /** How long the submissions made before the capacity scenarios may take to get their pods placed. */
    static final Duration PLACEMENT_WAIT = Duration.ofMinutes(3);
    static final Duration LONGEST_EXTRA_HOLD = Duration.ofMinutes(3);

    private final LocalJobRunner runner;
    private int capacityBefore;
    private Instant heldSince;
    private Instant releasedAt;

    NodeGroup(LocalJobRunner runner) {
        this.runner = runner;
    }

    /** No node is added from now on. */
    synchronized void hold() {
        if (heldSince == null) {
            capacityBefore = runner.gpuCapacity();
            runner.gpuCapacity(0);
            heldSince = Instant.now();
            LOG.info("node group held: no GPU node is added until the capacity scenarios have waited");
        }
    }

    synchronized boolean held() {
        return heldSince != null && releasedAt == null;
    }

    /** When the node group grew again (empty while it is held or was never held). */
    synchronized java.util.Optional<Instant> releasedAt() {
        return java.util.Optional.ofNullable(releasedAt);
    }

    /**
     * Grows the node group once the capacity scenarios have had their wait; {@code deadline} gives a submission's
     * track deadline in seconds.
     */
    synchronized void look(List<SubmissionRun> runs, SubmissionPods pods, ToLongFunction<SubmissionRun> deadline) {
        if (!held()) {
            return;
        }
        Instant now = Instant.now();
        long longest = 0;
        boolean waited = true;
        for (SubmissionRun run : runs) {
            if (run.scenario() == Scenario.CAPACITY && !run.ended()) {
                long seconds = deadline.applyAsLong(run);
                longest = Math.max(longest, seconds);
                Duration enough = Duration.ofSeconds(seconds).plus(PAST_DEADLINE);
                // Its pod must exist and have waited long enough: a pod not made yet has not waited at all.
                waited &= !pods.of(run.submissionId()).isEmpty() && pods.of(run.submissionId()).stream()
                        .allMatch(pod -> pod.placedAt().isPresent() || pod.created().plus(enough).isBefore(now));
            }
            if (run.scenario() == Scenario.CANCEL_PENDING && !run.ended()) {
                waited &= run.cancelRequested() && pods.of(run.submissionId()).isEmpty();
            }
        }
        boolean overdue = heldSince.plus(Duration.ofSeconds(longest)).plus(LONGEST_EXTRA_HOLD).isBefore(now);
        if (waited || overdue) {
            runner.gpuCapacity(capacityBefore);
            releasedAt = now;
            LOG.info(waited ? "node group grows: the capacity scenarios have waited"
                    : "node group grows after " + Duration.between(heldSince, now).toSeconds()
                            + " s although a capacity scenario is not where it should be");
        }
    }
}
