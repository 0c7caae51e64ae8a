package org.carla.leaderboard.domain.ledger;

import java.time.Instant;
import java.util.OptionalInt;

/**
 * The run item of a ledger ({@link RouteLedgerTable#RUN_ENTRY}): how many entries the run has (routes ×
 * repetitions: what FINISHED needs DONE), its schedule, its pods and pairs per pod, when it was made, and on a resume the
 * run whose DONE entries it carried over.
 */
public record RunItem(int total, Schedule schedule, int pods, int pairsPerPod, Instant created, OptionalInt carriedFrom) {

    public RunItem {
        if (total < 1 || pods < 1 || pairsPerPod < 1) {
            throw new IllegalArgumentException("a run has at least one entry, one pod and one pair per pod, was "
                    + total + ", " + pods + " and " + pairsPerPod);
        }
        if (schedule == null || created == null) {
            throw new IllegalArgumentException("a run item holds its schedule and when it was made");
        }
        carriedFrom = carriedFrom == null ? OptionalInt.empty() : carriedFrom;
    }

    /** Every pair of every pod of the run. */
    public int pairs() {
        return pods * pairsPerPod;
    }
}
