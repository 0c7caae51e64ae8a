package org.carla.leaderboard.domain.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.carla.leaderboard.domain.ledger.Ledgers.SENSORS;
import static org.carla.leaderboard.domain.ledger.Ledgers.checkpoint;
import static org.carla.leaderboard.domain.ledger.Ledgers.record;

import java.util.List;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.EntryStatus;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.junit.jupiter.api.Test;

class ClaimFilingTests {

    private static final EntryKey ENTRY = new EntryKey("27", 2);

    private static String refusal(CheckpointFile checkpoint) {
        ClaimFiling.Result result = ClaimFiling.check(checkpoint, ENTRY);
        assertThat(result).isInstanceOf(ClaimFiling.Refused.class);
        return ((ClaimFiling.Refused) result).reason();
    }

    @Test
    void theClaimsOneRecordIsFiledRenamedToTheEntrysRepetition() {
        RouteRecord driven = record("RouteScenario_27_rep0", 75);

        ClaimFiling.Result result = ClaimFiling.check(checkpoint(SENSORS, driven), ENTRY);

        assertThat(result).isInstanceOf(ClaimFiling.Accepted.class);
        var accepted = (ClaimFiling.Accepted) result;
        assertThat(accepted.record().routeId()).isEqualTo("RouteScenario_27_rep2");
        assertThat(accepted.record()).usingRecursiveComparison().ignoringFields("routeId").isEqualTo(driven);
        assertThat(accepted.sensors()).isEqualTo(SENSORS);
    }

    @Test
    void aCheckpointWithMoreThanTheClaimedRouteIsRefused() {
        assertThat(refusal(checkpoint(SENSORS, record("RouteScenario_27_rep0", 75), record("RouteScenario_28_rep0", 75))))
                .isEqualTo("the claim's checkpoint holds 2 route records, not 1");
        assertThat(refusal(CheckpointFile.empty())).isEqualTo("the claim's checkpoint holds 0 route records, not 1");
    }

    @Test
    void aRecordOfAnotherRouteOrRepetitionIsRefused() {
        assertThat(refusal(checkpoint(SENSORS, record("RouteScenario_28_rep0", 75))))
                .isEqualTo("the claim's record is of RouteScenario_28_rep0, not RouteScenario_27_rep0");
        assertThat(refusal(checkpoint(SENSORS, record("RouteScenario_27_rep2", 75))))
                .contains("is of RouteScenario_27_rep2");
        assertThat(refusal(checkpoint(SENSORS, record("RouteScenario_027_rep0", 75)))).contains("is of");
    }

    @Test
    void aRecordThatCannotCountOrACheckpointTheLeaderboardWouldNotAcceptIsRefused() {
        RouteRecord good = record("RouteScenario_27_rep0", 75);
        RouteRecord nan = new RouteRecord(0, good.routeId(), good.status(), 0, good.infractions(),
                new RouteRecord.Scores(Double.NaN, 1, 75), good.meta());

        assertThat(refusal(CheckpointFile.started(SENSORS, List.of(1, 1), List.of(nan)))).contains("score_route");
        // The evaluator writes no global record after a crash.
        assertThat(refusal(CheckpointFile.started(SENSORS, List.of(1, 1), List.of(good))))
                .isEqualTo("the claim's checkpoint cannot count: Missing 'values' data");
        assertThat(refusal(checkpoint(List.of(), good))).contains("Missing 'sensors' data");
    }

    @Test
    void aCheckpointThatIsNotFinishedIsRefusedEvenWithItsGlobalResults() {
        RouteRecord crashed = new RouteRecord(0, "RouteScenario_27_rep0", "Failed - Simulation crashed", 0,
                RouteRecord.emptyInfractions(), new RouteRecord.Scores(10, 1, 10), new RouteRecord.Meta(1200, 20, 40));

        assertThat(refusal(checkpoint(SENSORS, crashed))).isEqualTo("the claim's checkpoint is Crashed, not Finished");
        assertThat(refusal(checkpoint(SENSORS, record("RouteScenario_27_rep0", 75)).withEntryStatus(EntryStatus.INVALID)))
                .isEqualTo("the claim's checkpoint is Invalid, not Finished");
    }
}
