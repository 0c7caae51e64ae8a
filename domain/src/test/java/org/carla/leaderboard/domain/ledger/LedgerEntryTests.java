package org.carla.leaderboard.domain.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.carla.leaderboard.domain.ledger.Ledgers.START;

import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.domain.results.RouteRecordCheck;
import org.junit.jupiter.api.Test;

class LedgerEntryTests {

    private static final EntryKey KEY = new EntryKey("27", 0);
    private static final Claim CLAIM = new Claim("pod-a", 0, 1, "token", START, START.plusSeconds(120));

    private static LedgerEntry item(EntryState state, Optional<Claim> claim, boolean record) {
        return new LedgerEntry(KEY, state, "Town12", 1200, 800, claim, 0, 0, List.of(),
                record ? Optional.of(Ledgers.record(KEY.recordRouteId(), 100)) : Optional.empty(), List.of());
    }

    @Test
    void anItemWhoseStateDisagreesWithItsClaimOrRecordIsRefusedNamingTheEntry() {
        assertThatThrownBy(() -> item(EntryState.CLAIMED, Optional.empty(), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("entry 27#0 is CLAIMED without a claim");
        assertThatThrownBy(() -> item(EntryState.OPEN, Optional.of(CLAIM), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("entry 27#0 is OPEN with a claim");
        assertThatThrownBy(() -> item(EntryState.DONE, Optional.empty(), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("entry 27#0 is DONE without a record");
        assertThatThrownBy(() -> item(EntryState.GAVE_UP, Optional.empty(), true))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("entry 27#0 is GAVE_UP with a record");
        assertThatThrownBy(() -> new LedgerEntry(KEY, EntryState.OPEN, "Town12", Double.NaN, 800, Optional.empty(), 0,
                0, List.of(), Optional.empty(), List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anAttemptsReasonIsOnePrintableLineOfBoundedLength() {
        String quoted = "the evaluator said:\n\tTraceback \u001b[91m\u202eerror\n" + "x".repeat(1000);

        String reason = new Attempt("pod-a", 0, 1, null, null, START, START, AttemptOutcome.AGENT_CRASH, quoted, null)
                .reason();

        assertThat(reason).startsWith("the evaluator said: Traceback \\u001b[91m\\u202eerror xxx").endsWith("...")
                .hasSize(RouteRecordCheck.MAX_TEXT + 3);
    }

    @Test
    void aClaimOrAttemptNamesAPodAPairAndItsTimes() {
        assertThatThrownBy(() -> new Claim(" ", 0, 1, "token", START, START)).isInstanceOf(
                IllegalArgumentException.class);
        assertThatThrownBy(() -> new Claim("pod-a", 0, 0, "token", START, START)).isInstanceOf(
                IllegalArgumentException.class);
        assertThatThrownBy(() -> new Claim("pod-a", 0, 1, "", START, START)).isInstanceOf(
                IllegalArgumentException.class);
        assertThatThrownBy(() -> new Attempt("pod-a", -1, 1, null, null, START, START, AttemptOutcome.DONE, "", null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Attempt("pod-a", 0, 1, null, null, START, null, AttemptOutcome.DONE, "", null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
