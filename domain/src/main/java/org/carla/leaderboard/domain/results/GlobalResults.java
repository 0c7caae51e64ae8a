package org.carla.leaderboard.domain.results;

import java.util.List;

/** What {@link GlobalStatistics} computes: the global record, its {@code values} strings and the entry status. */
public record GlobalResults(GlobalRecord record, List<String> values, EntryStatus entryStatus) {

    public GlobalResults {
        values = List.copyOf(values);
    }
}
