package org.carla.leaderboard.domain.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.carla.leaderboard.domain.results.RouteRecord;
import org.junit.jupiter.api.Test;

class RouteLedgerTableTests {

    @Test
    void aRunsLedgerAndATracksDurationsHaveTheirOwnPartitions() {
        assertThat(RouteLedgerTable.ledgerPartition("leaderboard-20", "2077", 3)).isEqualTo("leaderboard-20#2077#r3");
        assertThat(RouteLedgerTable.trackPartition("leaderboard-20", "SENSORS")).isEqualTo("track#leaderboard-20#SENSORS");
    }

    @Test
    void aKeyPartThatCouldRunIntoAnotherPartitionIsRefused() {
        assertThatThrownBy(() -> RouteLedgerTable.ledgerPartition("leaderboard-20", "2077#r1", 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("submission id");
        assertThatThrownBy(() -> RouteLedgerTable.ledgerPartition("track", "leaderboard-20", 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RouteLedgerTable.ledgerPartition("", "2077", 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RouteLedgerTable.ledgerPartition("leaderboard-20", "2077", 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RouteLedgerTable.trackPartition("leaderboard-20", "MAP#x"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRecordReadsBackAsItWasFiled() {
        RouteRecord record = Ledgers.record("RouteScenario_27_rep1", 62.5);

        assertThat(RouteLedgerTable.record(RouteLedgerTable.recordText(record))).isEqualTo(record);
        assertThatThrownBy(() -> RouteLedgerTable.record("[1, 2]")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not a route record");
    }
}
