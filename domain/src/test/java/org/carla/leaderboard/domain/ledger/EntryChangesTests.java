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
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import org.carla.leaderboard.domain.ledger.EntryChanges.Change;
import org.junit.jupiter.api.Test;

class EntryChangesTests {

    private static final Duration LEASE = Duration.ofMinutes(2);
    private static final PairPlacement NODE_1 = new PairPlacement("ip-10-0-1-5", "GPU-5f3a");
    private static final PairPlacement NODE_2 = new PairPlacement("ip-10-0-2-9", "GPU-77c1");

    private Instant now = START;

    /** The writes as they are at {@code now}: one track allows 1 resume and 2 attempts lost to the infrastructure. */
    private EntryChanges changes() {
        return new EntryChanges(LEASE, new RetryBudget(1, 2), Clock.fixed(now, ZoneOffset.UTC));
    }
    private final Claimer podA = pair("pod-a", 0, 1);
    private final Claimer podB = pair("pod-b", 1, 2);

    private static LedgerEntry written(Change change) {
        assertThat(change).isInstanceOf(Change.Written.class);
        return ((Change.Written) change).entry();
    }

    private static ClaimFiling.Accepted filing(LedgerEntry entry, double score) {
        return (ClaimFiling.Accepted) ClaimFiling.check(Ledgers.checkpoint(SENSORS,
                record(entry.key().claimRecordRouteId(), score)), entry.key());
    }

    @Test
    void anOpenEntryIsClaimedUnderALeaseAndAHeldOneIsRefusedUntilItsLeaseHasRunOut() {
        LedgerEntry claimed = written(changes().claim(entry("27", 0, 600), podA, "token-a"));

        assertThat(claimed.state()).isEqualTo(EntryState.CLAIMED);
        assertThat(claimed.claim()).contains(new Claim("pod-a", 0, 1, "token-a", START, START.plus(LEASE)));
        now = START.plus(LEASE);
        assertThat(changes().claim(claimed, podB, "token-b")).isInstanceOf(Change.Refused.class);
    }

    @Test
    void aLapsedClaimIsTakenOverAndItsAttemptRecordedAsLostToTheInfrastructure() {
        LedgerEntry claimed = written(changes().claim(entry("27", 0, 600), podA, "token-a"));
        now = START.plus(LEASE).plusMillis(1);

        LedgerEntry taken = written(changes().claim(claimed, podB, "token-b"));

        assertThat(taken.state()).isEqualTo(EntryState.CLAIMED);
        assertThat(taken.claim().orElseThrow().claimer()).isEqualTo(podB);
        assertThat(taken.infraTries()).isEqualTo(1);
        assertThat(taken.tries()).isZero();
        Attempt lost = taken.attempts().get(0);
        assertThat(lost.outcome()).isEqualTo(AttemptOutcome.INFRASTRUCTURE);
        assertThat(List.of(lost.pod(), lost.index(), lost.pair())).containsExactly("pod-a", 0, 1);
        assertThat(lost.durationSeconds()).isEqualTo(120.0);
        assertThat(lost.reason()).contains("lease lapsed", "pod-b (index 1) pair 2");
    }

    @Test
    void aLapsedClaimPastTheInfrastructureBoundGivesUpInsteadOfBeingClaimed() {
        LedgerEntry entry = entry("27", 0, 600);
        for (int attempt = 0; attempt < 3; attempt++) {
            entry = written(changes().claim(entry, podA, "token-" + attempt));
            now = now.plus(LEASE.plusSeconds(1));
        }

        // Two lapses were taken over (bound 2); the third would be one more than the bound.
        assertThat(entry.infraTries()).isEqualTo(2);
        LedgerEntry gaveUp = written(changes().claim(entry, podB, "token-b"));
        assertThat(gaveUp.state()).isEqualTo(EntryState.GAVE_UP);
        assertThat(gaveUp.claim()).isEmpty();
        assertThat(gaveUp.attempts()).hasSize(3).allMatch(a -> a.outcome() == AttemptOutcome.INFRASTRUCTURE);
    }

    @Test
    void onlyTheHolderRenewsAndTheLeaseRunsFromNow() {
        LedgerEntry claimed = written(changes().claim(entry("27", 0, 600), podA, "token-a"));
        Claim mine = claimed.claim().orElseThrow();
        now = now.plus(Duration.ofSeconds(100));

        LedgerEntry renewed = written(changes().renew(claimed, mine));

        assertThat(renewed.claim().orElseThrow().leaseUntil()).isEqualTo(START.plusSeconds(100).plus(LEASE));
        assertThat(renewed.claim().orElseThrow().since()).isEqualTo(START);
        now = now.plus(LEASE.plusSeconds(1));
        LedgerEntry taken = written(changes().claim(renewed, podB, "token-b"));
        assertThat(changes().renew(taken, mine)).isInstanceOf(Change.Refused.class);
    }

    @Test
    void filingMakesTheEntryDoneWithTheRecordTheSensorsAndTheAttempt() {
        LedgerEntry claimed = written(changes().claim(entry("27", 1, 600), podA, "token-a"));
        now = now.plus(Duration.ofSeconds(450));

        LedgerEntry done = written(changes().file(claimed, claimed.claim().orElseThrow(), NODE_1, filing(claimed, 80)));

        assertThat(done.state()).isEqualTo(EntryState.DONE);
        assertThat(done.claim()).isEmpty();
        assertThat(done.record().orElseThrow().routeId()).isEqualTo("RouteScenario_27_rep1");
        assertThat(done.sensors()).isEqualTo(SENSORS);
        Attempt attempt = done.attempts().get(0);
        assertThat(attempt.outcome()).isEqualTo(AttemptOutcome.DONE);
        assertThat(List.of(attempt.node(), attempt.gpu())).containsExactly("ip-10-0-1-5", "GPU-5f3a");
        assertThat(attempt.durationSeconds()).isEqualTo(450.0);
        assertThat(attempt.simSpeed()).isEqualTo(0.5);
    }

    @Test
    void theFirstAttemptFiledDoneIsTheRoutesRecordALaterOneIsRecordedAsDuplicate() {
        LedgerEntry claimedByA = written(changes().claim(entry("27", 0, 600), podA, "token-a"));
        Claim a = claimedByA.claim().orElseThrow();
        now = now.plus(LEASE.plusSeconds(1)); // pod A stops renewing (its logcopy stalled), pod B takes over
        LedgerEntry claimedByB = written(changes().claim(claimedByA, podB, "token-b"));

        // A finishes first, but its claim is no longer its own: nothing is filed while B drives.
        assertThat(changes().file(claimedByB, a, NODE_1, filing(claimedByA, 60))).isInstanceOf(Change.Refused.class);
        now = now.plus(Duration.ofSeconds(300));
        LedgerEntry done = written(changes().file(claimedByB, claimedByB.claim().orElseThrow(), NODE_2,
                filing(claimedByB, 90)));
        LedgerEntry again = written(changes().file(done, a, NODE_1, filing(claimedByA, 60)));

        assertThat(again.state()).isEqualTo(EntryState.DONE);
        assertThat(again.record().orElseThrow().scores().scoreComposed()).isEqualTo(90.0);
        assertThat(again.attempts()).extracting(Attempt::outcome).containsExactly(AttemptOutcome.INFRASTRUCTURE,
                AttemptOutcome.DONE, AttemptOutcome.DUPLICATE);
        assertThat(again.attempts().get(2).pod()).isEqualTo("pod-a");
    }

    @Test
    void aReleasedClaimOpensTheEntryAgainAndCountsItsFailure() {
        LedgerEntry claimed = written(changes().claim(entry("27", 0, 600), podA, "token-a"));

        LedgerEntry crashed = written(changes().release(claimed, claimed.claim().orElseThrow(), NODE_1,
                AttemptOutcome.SIMULATOR_CRASH, "CARLA exited with 139\n(segmentation fault)"));

        assertThat(crashed.state()).isEqualTo(EntryState.OPEN);
        assertThat(crashed.claim()).isEmpty();
        assertThat(crashed.tries()).isEqualTo(1);
        assertThat(crashed.attempts().get(0).reason()).isEqualTo("CARLA exited with 139 (segmentation fault)");
        LedgerEntry again = written(changes().claim(crashed, podB, "token-b"));
        LedgerEntry stopped = written(changes().release(again, again.claim().orElseThrow(), NODE_2,
                AttemptOutcome.INFRASTRUCTURE, "SIGTERM: spot interruption"));
        assertThat(stopped.state()).isEqualTo(EntryState.OPEN);
        assertThat(List.of(stopped.tries(), stopped.infraTries())).containsExactly(1, 1);
    }

    @Test
    void aFailureBeyondTheTracksAllowedResumesGivesUp() {
        LedgerEntry entry = entry("27", 0, 600);
        for (AttemptOutcome outcome : List.of(AttemptOutcome.AGENT_CRASH, AttemptOutcome.AGENT_TIMEOUT)) {
            LedgerEntry claimed = written(changes().claim(entry, podA, "token-" + outcome));
            entry = written(changes().release(claimed, claimed.claim().orElseThrow(), NODE_1, outcome, "failed"));
        }

        // allowed-resumes 1: the second counted failure gives up.
        assertThat(entry.state()).isEqualTo(EntryState.GAVE_UP);
        assertThat(entry.tries()).isEqualTo(2);
        var strict = new EntryChanges(LEASE, RetryBudget.of(0), Clock.fixed(now, ZoneOffset.UTC));
        LedgerEntry claimed = written(strict.claim(entry("28", 0, 600), podA, "token"));
        assertThat(written(strict.release(claimed, claimed.claim().orElseThrow(), NODE_1,
                AttemptOutcome.INVALID_RESULT, "two records")).state()).isEqualTo(EntryState.GAVE_UP);
    }

    @Test
    void aClaimTakenOverCannotBeReleasedAndAFiledOneIsNotReleasedAtAll() {
        LedgerEntry claimed = written(changes().claim(entry("27", 0, 600), podA, "token-a"));
        Claim a = claimed.claim().orElseThrow();
        now = now.plus(LEASE.plusSeconds(1));
        LedgerEntry taken = written(changes().claim(claimed, podB, "token-b"));

        assertThat(changes().release(taken, a, NODE_1, AttemptOutcome.AGENT_CRASH, "late")).isInstanceOf(
                Change.Refused.class);
        assertThatThrownBy(() -> changes().release(taken, taken.claim().orElseThrow(), NODE_2, AttemptOutcome.DONE, ""))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
