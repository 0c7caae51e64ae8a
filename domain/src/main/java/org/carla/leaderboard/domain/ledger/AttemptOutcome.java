package org.carla.leaderboard.domain.ledger;

import java.util.Optional;

/** How an attempt at an entry ended, and which of the entry's counters it adds to. */
public enum AttemptOutcome {
    /** Its record was filed: the entry is DONE. */
    DONE(Charge.NONE),
    /** CARLA died during the route. */
    SIMULATOR_CRASH(Charge.TRIES),
    /** The evaluator (the participant's agent) died. */
    AGENT_CRASH(Charge.TRIES),
    /** The evaluator wrote nothing for too long and was stopped. */
    AGENT_TIMEOUT(Charge.TRIES),
    /** Lost to the infrastructure: the pod lost or stopped (SIGTERM), the claim's lease lapsed. */
    INFRASTRUCTURE(Charge.INFRA_TRIES),
    /** The claim's checkpoint did not hold exactly the route's valid record ({@link ClaimFiling}). */
    INVALID_RESULT(Charge.TRIES),
    /** A valid record filed after another attempt had filed the entry DONE: recorded, ignored. */
    DUPLICATE(Charge.NONE);

    /** The counter an outcome adds one to. */
    public enum Charge {
        NONE,
        /** {@code tries}: against the track's {@code allowed-resumes}. */
        TRIES,
        /** {@code infra_tries}: against the infrastructure bound. */
        INFRA_TRIES
    }

    private final Charge charge;

    AttemptOutcome(Charge charge) {
        this.charge = charge;
    }

    public Charge charge() {
        return charge;
    }

    /** Whether a released claim may end so: every outcome but a filed record ({@code DONE}, {@code DUPLICATE}). */
    public boolean failure() {
        return this != DONE && this != DUPLICATE;
    }

    /** The outcome an attribute holds; empty when it holds none or one this code does not know. */
    public static Optional<AttemptOutcome> parse(String value) {
        for (AttemptOutcome outcome : values()) {
            if (outcome.name().equals(value)) {
                return Optional.of(outcome);
            }
        }
        return Optional.empty();
    }
}
