package org.carla.leaderboard.domain.ledger;

import java.util.Optional;

/**
 * An entry's state: OPEN (waiting for a pair) → CLAIMED (a pair drives it, under a lease) → DONE (its record is filed)
 * or back to OPEN (the attempt failed, the claim was released) or GAVE_UP (its retry budget is spent: the run cannot
 * finish). DONE and GAVE_UP are final.
 */
public enum EntryState {
    OPEN,
    CLAIMED,
    DONE,
    GAVE_UP;

    /** The state an attribute holds; empty when it holds none or one this code does not know. */
    public static Optional<EntryState> parse(String value) {
        for (EntryState state : values()) {
            if (state.name().equals(value)) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }
}
