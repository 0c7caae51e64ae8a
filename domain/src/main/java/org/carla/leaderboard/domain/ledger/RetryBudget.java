package org.carla.leaderboard.domain.ledger;

/**
 * When an entry gives up: its {@code tries} (attempts failed by the simulator, the agent or its result) over the
 * track's {@code allowed-resumes}, or its {@code infra_tries} (attempts lost to the infrastructure) over their own bound.
 * With {@code allowed-resumes} 0 the first failed attempt gives up.
 */
public record RetryBudget(int allowedResumes, int infrastructureBound) {

    /** Attempts an entry may lose to the infrastructure (nodes lost, spot interruptions) before it gives up. */
    public static final int DEFAULT_INFRASTRUCTURE_BOUND = 5;

    public RetryBudget {
        if (allowedResumes < 0 || infrastructureBound < 0) {
            throw new IllegalArgumentException("retry bounds are 0 or more, were " + allowedResumes + " and "
                    + infrastructureBound);
        }
    }

    public static RetryBudget of(int allowedResumes) {
        return new RetryBudget(allowedResumes, DEFAULT_INFRASTRUCTURE_BOUND);
    }

    public boolean spent(int tries, int infraTries) {
        return tries > allowedResumes || infraTries > infrastructureBound;
    }
}
