package org.carla.leaderboard.domain.ledger;

import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.CheckpointValidation;
import org.carla.leaderboard.domain.results.EntryStatus;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.domain.results.RouteRecordCheck;

/**
 * What a claim's checkpoint files in the ledger. A claim drives one route once ({@code --routes-subset=<route_id>
 * --repetitions=1}), so its checkpoint, written where a participant's code runs, must hold exactly that route's record,
 * {@code RouteScenario_<route_id>_rep0}, a record that can count ({@link RouteRecordCheck}) in a checkpoint the
 * Leaderboard would accept ({@link CheckpointValidation}) and that is {@code Finished} (the evaluator writes no global
 * record after a crash or rejected sensors, so only a forged checkpoint is valid and not finished). The record is filed
 * renamed to the entry's repetition ({@code _rep<k>}); anything else is refused, and the attempt ends
 * {@code INVALID_RESULT}.
 */
public final class ClaimFiling {

    private ClaimFiling() {
    }

    /** The checkpoint's verdict. */
    public sealed interface Result {
    }

    /** The record to file (route id {@code _rep<k>}) and the checkpoint's sensors. */
    public record Accepted(RouteRecord record, List<String> sensors) implements Result {

        public Accepted {
            sensors = List.copyOf(sensors);
        }
    }

    /** Why the checkpoint files nothing. */
    public record Refused(String reason) implements Result {
    }

    public static Result check(CheckpointFile checkpoint, EntryKey entry) {
        List<RouteRecord> records = checkpoint.checkpoint().records();
        if (records.size() != 1) {
            return new Refused("the claim's checkpoint holds " + records.size() + " route records, not 1");
        }
        RouteRecord record = records.get(0);
        if (!entry.claimRecordRouteId().equals(record.routeId())) {
            return new Refused("the claim's record is of " + RouteRecordCheck.printable(record.routeId()) + ", not "
                    + entry.claimRecordRouteId());
        }
        Optional<String> problem = RouteRecordCheck.problem(record)
                .or(() -> CheckpointValidation.problem(checkpoint, true, false));
        if (problem.isPresent()) {
            return new Refused("the claim's checkpoint cannot count: " + problem.get());
        }
        if (!EntryStatus.FINISHED.label().equals(checkpoint.entryStatus())) {
            return new Refused("the claim's checkpoint is " + RouteRecordCheck.printable(checkpoint.entryStatus())
                    + ", not " + EntryStatus.FINISHED.label());
        }
        return new Accepted(renamed(record, entry.recordRouteId()), checkpoint.sensors());
    }

    private static RouteRecord renamed(RouteRecord record, String routeId) {
        return new RouteRecord(record.index(), routeId, record.status(), record.numInfractions(), record.infractions(),
                record.scores(), record.meta());
    }
}
