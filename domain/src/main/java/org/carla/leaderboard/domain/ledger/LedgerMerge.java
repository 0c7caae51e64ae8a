package org.carla.leaderboard.domain.ledger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.MergeResult;

/**
 * The merged checkpoint of a run from its ledger: every DONE entry's record with its checkpoint's sensors, through
 * {@link CheckpointMerge} as the agents' checkpoints were merged (the Leaderboard's order and numbers, global results
 * only when all {@code total} entries are there, conflicting sensors refused). Each DONE entry counts as a checkpoint of
 * one route of one; entries in other states hold no record and count as routes not driven yet.
 */
public final class LedgerMerge {

    private LedgerMerge() {
    }

    /** @param total the run item's {@code total}: the route records a complete run holds */
    public static MergeResult merge(Collection<LedgerEntry> entries, int total) {
        var inputs = new ArrayList<CheckpointFile>();
        for (LedgerEntry entry : entries) {
            entry.record().ifPresent(record -> inputs.add(
                    CheckpointFile.started(entry.sensors(), List.of(1, 1), List.of(record))));
        }
        return CheckpointMerge.merge(inputs, OptionalInt.of(total));
    }
}
