package org.carla.leaderboard.domain.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.carla.leaderboard.domain.ledger.Ledgers.SENSORS;
import static org.carla.leaderboard.domain.ledger.Ledgers.START;
import static org.carla.leaderboard.domain.ledger.Ledgers.entry;
import static org.carla.leaderboard.domain.ledger.Ledgers.pair;
import static org.carla.leaderboard.domain.ledger.Ledgers.record;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.ledger.EntryChanges.Change;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class LedgerItemsTests {

    private static final String PARTITION = RouteLedgerTable.ledgerPartition("leaderboard-20", "4821", 1);
    private final EntryChanges changes = new EntryChanges(Duration.ofMinutes(2), new RetryBudget(1, 2),
            Clock.fixed(START, ZoneOffset.UTC));

    private static LedgerEntry written(Change change) {
        return ((Change.Written) change).entry();
    }

    private static LedgerEntry roundTrip(LedgerEntry entry) {
        var read = LedgerItems.entry(LedgerItems.entryItem(PARTITION, entry, 7));
        assertThat(read.version()).isEqualTo(7);
        return read.value();
    }

    @Test
    void everyStateOfAnEntryReadsBackAsItWasWritten() {
        LedgerEntry open = entry("27", 1, 612.5);
        LedgerEntry claimed = written(changes.claim(open, pair("pod-a", 0, 2), "token-a"));
        LedgerEntry released = written(changes.release(claimed, claimed.claim().orElseThrow(), PairPlacement.UNKNOWN,
                AttemptOutcome.AGENT_CRASH, "the evaluator exited with code 1\nTraceback"));
        LedgerEntry again = written(changes.claim(released, pair("pod-b", 1, 1), "token-b"));
        var filing = (ClaimFiling.Accepted) ClaimFiling.check(Ledgers.checkpoint(SENSORS, record(
                open.key().claimRecordRouteId(), 87.25)), open.key());
        LedgerEntry done = written(changes.file(again, again.claim().orElseThrow(), new PairPlacement("ip-10-0-1-5",
                "GPU-5f3a"), filing));
        LedgerEntry gaveUp = written(changes.release(written(changes.claim(released, pair("pod-c", 2, 1), "token-c")),
                new Claim("pod-c", 2, 1, "token-c", START, START.plusSeconds(120)), PairPlacement.UNKNOWN,
                AttemptOutcome.SIMULATOR_CRASH, "CARLA exited"));

        for (LedgerEntry entry : new LedgerEntry[] {open, claimed, released, again, done, gaveUp}) {
            assertThat(roundTrip(entry)).as(entry.state().name()).isEqualTo(entry);
        }
        assertThat(done.record().orElseThrow().routeId()).isEqualTo("RouteScenario_27_rep1");
        assertThat(gaveUp.state()).isEqualTo(EntryState.GAVE_UP);
        assertThat(released.attempts().get(0).reason()).doesNotContain("\n");
    }

    @Test
    void theRunItemAndATracksRouteDurationsReadBack() {
        var run = new RunItem(20, Schedule.DYNAMIC, 4, 1, START, OptionalInt.of(1));
        var durations = new RouteDurations(3, 845.125);

        assertThat(LedgerItems.run(LedgerItems.runItem(PARTITION, run, 1)).value()).isEqualTo(run);
        assertThat(LedgerItems.durations(LedgerItems.durationsItem(RouteLedgerTable.trackPartition("leaderboard-20",
                "SENSORS"), "27", durations, 3))).isEqualTo(new LedgerItems.Versioned<>(durations, 3L));
        assertThat(LedgerItems.runItem(PARTITION, run, 1)).containsEntry(RouteLedgerTable.ENTRY,
                AttributeValue.fromS(RouteLedgerTable.RUN_ENTRY));
    }

    @Test
    void anItemThatIsNotAnEntryIsRefusedNamingTheEntryAndTheAttribute() {
        Map<String, AttributeValue> item = new HashMap<>(LedgerItems.entryItem(PARTITION, entry("27", 0, 60), 1));

        item.put(RouteLedgerTable.STATE, AttributeValue.fromS("FINISHED"));
        assertThatThrownBy(() -> LedgerItems.entry(item)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("27#0").hasMessageContaining("state");

        item.put(RouteLedgerTable.STATE, AttributeValue.fromS("DONE"));
        assertThatThrownBy(() -> LedgerItems.entry(item)).hasMessageContaining("27#0")
                .hasMessageContaining("without a record");

        item.put(RouteLedgerTable.STATE, AttributeValue.fromS("OPEN"));
        item.remove(RouteLedgerTable.VERSION);
        assertThatThrownBy(() -> LedgerItems.entry(item)).hasMessageContaining("no version");

        item.put(RouteLedgerTable.VERSION, AttributeValue.fromN("1"));
        item.put(RouteLedgerTable.ENTRY, AttributeValue.fromS("27#0#x"));
        assertThatThrownBy(() -> LedgerItems.entry(item)).hasMessageContaining("<route_id>#<repetition>");
    }
}
