package org.carla.leaderboard.domain.results;

/** The checkpoint's {@code entry_status} values, and whether each makes the entry eligible. */
public enum EntryStatus {
    STARTED("Started"),
    FINISHED("Finished"),
    REJECTED("Rejected"),
    CRASHED("Crashed"),
    INVALID("Invalid");

    private final String label;

    EntryStatus(String label) {
        this.label = label;
    }

    /** The value written in {@code entry_status}. */
    public String label() {
        return label;
    }

    /** Only a finished entry is eligible. */
    public boolean eligible() {
        return this == FINISHED;
    }
}
