package org.carla.leaderboard.domain.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.ledger.ClaimAssignment.Crashes;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.junit.jupiter.api.Test;

class ClaimAssignmentTests {

    @Test
    void aClaimAndTheEndOfAPairsClaimsReadBackAsWritten() {
        var drive = ClaimAssignment.drive(3, new EntryKey("27", 1), "1a2b3c4d", new Crashes(0, 1));
        var none = ClaimAssignment.none(4, new Crashes(1, 1), "route 12 repetition 0 gave up after 2 attempts");

        assertThat(ClaimAssignment.parse(drive.json())).isEqualTo(drive);
        assertThat(ClaimAssignment.parse(none.json())).isEqualTo(none);
        assertThat(none.none()).isTrue();
        assertThat(LogsLayout.claimCheckpoint(2, drive.number(), drive.tag()))
                .isEqualTo("agent/agent2/claim-3-1a2b3c4d.json");
    }

    @Test
    void aClaimFileThatIsNotOneIsRefused() {
        assertThatThrownBy(() -> ClaimAssignment.parse("[]")).hasMessageContaining("{\"claim\": <n>");
        assertThatThrownBy(() -> ClaimAssignment.parse("{\"claim\": 1, \"entry\": \"27#0\"}"))
                .hasMessageContaining("crash counts");
        assertThatThrownBy(() -> ClaimAssignment.parse("{\"claim\": 1, \"crashes\": {\"agent\": 0, "
                + "\"simulator\": 0}, \"entry\": \"../27#0\", \"tag\": \"1a2b3c4d\"}"))
                .hasMessageContaining("<route_id>#<repetition>");
        assertThatThrownBy(() -> ClaimAssignment.parse("{\"claim\": 1, \"crashes\": {\"agent\": 0, "
                + "\"simulator\": 0}, \"entry\": \"27#0\", \"tag\": \"../../x\"}"))
                .hasMessageContaining("8 hex digits");
    }

    @Test
    void theLastClaimAnAgentEndedIsTheHighestOfItsOwnClaimFiles() {
        var names = List.of("agent-1.claim1", "agent-1.claim3", "agent-1.claim2", "agent-2.claim9", "agent-1.claim0",
                "agent-1.claimx", "agent-1.crash0");

        assertThat(StatusFiles.lastClaimEnded(names, 1)).isEqualTo(3);
        assertThat(StatusFiles.lastClaimEnded(names, 3)).isZero();
        assertThat(StatusFiles.claimEnded(1, 4)).isEqualTo("agent-1.claim4");
    }
}
