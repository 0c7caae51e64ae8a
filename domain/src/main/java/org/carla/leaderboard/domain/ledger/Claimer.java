package org.carla.leaderboard.domain.ledger;

/**
 * A worker pair that claims: its pod (the pod's name: a replacement pod of the same index has another), the pod's
 * index in the Job (its completion index, from 0) and the pair's number in the pod (from 1).
 */
public record Claimer(String pod, int index, int pair) {

    public Claimer {
        if (pod == null || pod.isBlank()) {
            throw new IllegalArgumentException("a claimer names its pod");
        }
        if (index < 0) {
            throw new IllegalArgumentException("a pod's completion index is 0 or more, was " + index);
        }
        if (pair < 1) {
            throw new IllegalArgumentException("a worker pair's number is 1 or more, was " + pair);
        }
    }

    /** The pair's place among all pairs of all pods of the run, from 0: pod index × pairs per pod + pair − 1. */
    public int runPair(int pairsPerPod) {
        if (pair > pairsPerPod) {
            throw new IllegalArgumentException("pair " + pair + " of a pod with " + pairsPerPod + " pairs");
        }
        return index * pairsPerPod + pair - 1;
    }

    /** Whether this pair's pod replaced the pod that made a claim: the same index, another pod. */
    public boolean replaced(Claim claim) {
        return claim.index() == index && !claim.pod().equals(pod);
    }

    @Override
    public String toString() {
        return pod + " (index " + index + ") pair " + pair;
    }
}
