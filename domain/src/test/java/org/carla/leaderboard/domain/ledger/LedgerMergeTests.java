package org.carla.leaderboard.domain.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.carla.leaderboard.domain.ledger.Ledgers.SENSORS;
import static org.carla.leaderboard.domain.ledger.Ledgers.START;
import static org.carla.leaderboard.domain.ledger.Ledgers.checkpoint;
import static org.carla.leaderboard.domain.ledger.Ledgers.entry;
import static org.carla.leaderboard.domain.ledger.Ledgers.pair;
import static org.carla.leaderboard.domain.ledger.Ledgers.record;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.MergeResult;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.junit.jupiter.api.Test;

class LedgerMergeTests {

    private final EntryChanges changes = new EntryChanges(Duration.ofMinutes(2), RetryBudget.of(4),
            Clock.fixed(START, ZoneOffset.UTC));

    /** The entry after one pair claimed it and filed the record its evaluator wrote (route id {@code _rep0}). */
    private LedgerEntry driven(LedgerEntry entry, List<String> sensors, double score) {
        var claimed = (EntryChanges.Change.Written) changes.claim(entry, pair("pod-a", 0, 1), "token");
        var accepted = (ClaimFiling.Accepted) ClaimFiling.check(
                checkpoint(sensors, record(entry.key().claimRecordRouteId(), score)), entry.key());
        var done = (EntryChanges.Change.Written) changes.file(claimed.entry(), claimed.entry().claim().orElseThrow(),
                PairPlacement.UNKNOWN, accepted);
        return done.entry();
    }

    @Test
    void aDoneLedgerMergesToWhatTheAgentsCheckpointsOfTheSameRecordsMergeTo() {
        // Filed in the order the claims ended, longest first; the merge puts them in the Leaderboard's order.
        var entries = List.of(driven(entry("1", 0, 900), SENSORS, 40), driven(entry("0", 1, 800), SENSORS, 100),
                driven(entry("0", 0, 700), SENSORS, 70), driven(entry("1", 1, 100), SENSORS, 90));

        MergeResult merged = LedgerMerge.merge(entries, 4);

        // The seeds' layout: two pairs, each one route × 2 repetitions in one checkpoint.
        MergeResult seeds = CheckpointMerge.merge(List.of(
                checkpoint(SENSORS, record("RouteScenario_0_rep0", 70), record("RouteScenario_0_rep1", 100)),
                checkpoint(SENSORS, record("RouteScenario_1_rep0", 40), record("RouteScenario_1_rep1", 90))),
                OptionalInt.of(4));
        assertThat(merged.problems()).isEmpty();
        assertThat(merged.globalResults()).isTrue();
        assertThat(merged.merged().checkpoint().records()).extracting(RouteRecord::routeId).containsExactly(
                "RouteScenario_0_rep0", "RouteScenario_0_rep1", "RouteScenario_1_rep0", "RouteScenario_1_rep1");
        assertThat(ResultsJson.write(merged.merged())).isEqualTo(ResultsJson.write(seeds.merged()));
    }

    @Test
    void entriesNotDoneCountAsRoutesNotDrivenYet() {
        var entries = new ArrayList<>(List.of(driven(entry("0", 0, 100), SENSORS, 70),
                driven(entry("1", 0, 100), SENSORS, 80), entry("2", 0, 100)));
        entries.add(((EntryChanges.Change.Written) changes.claim(entry("3", 0, 100), pair("pod-a", 0, 2), "t"))
                .entry());

        MergeResult merged = LedgerMerge.merge(entries, 4);

        assertThat(merged.globalResults()).isFalse();
        assertThat(merged.merged().checkpoint().progress()).containsExactly(2, 4);
        assertThat(merged.merged().hasGlobalRecord()).isFalse();
    }

    @Test
    void aRouteDrivenTwiceCountsOnceTheFirstFiledRecord() {
        LedgerEntry first = driven(entry("0", 0, 100), SENSORS, 70);
        var late = (ClaimFiling.Accepted) ClaimFiling.check(checkpoint(SENSORS, record("RouteScenario_0_rep0", 10)),
                first.key());
        var duplicate = (EntryChanges.Change.Written) changes.file(first, Ledgers.claimed(entry("0", 0, 100),
                pair("pod-b", 1, 1), START).claim().orElseThrow(), PairPlacement.UNKNOWN, late);

        MergeResult merged = LedgerMerge.merge(List.of(duplicate.entry(), driven(entry("1", 0, 100), SENSORS, 90)), 2);

        assertThat(merged.problems()).isEmpty();
        assertThat(merged.merged().checkpoint().records()).extracting(r -> r.scores().scoreComposed())
                .containsExactly(70.0, 90.0);
    }

    @Test
    void entriesFiledWithDifferentSensorsAreRefused() {
        var entries = List.of(driven(entry("0", 0, 100), SENSORS, 70),
                driven(entry("1", 0, 100), List.of("carla_camera"), 80));

        MergeResult merged = LedgerMerge.merge(entries, 2);

        assertThat(merged.globalResults()).isFalse();
        assertThat(merged.problems()).singleElement().asString().startsWith("two agents report different sensors");
    }

    @Test
    void aLedgerWithNothingDoneMergesToTheCheckpointBeforeTheStart() {
        CheckpointFile merged = LedgerMerge.merge(List.of(entry("0", 0, 1)), 20).merged();

        assertThat(ResultsJson.write(merged)).isEqualTo(ResultsJson.write(CheckpointFile.empty()));
    }
}
