package org.carla.leaderboard.domain.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.carla.leaderboard.domain.ledger.Ledgers.START;
import static org.carla.leaderboard.domain.ledger.Ledgers.claimed;
import static org.carla.leaderboard.domain.ledger.Ledgers.done;
import static org.carla.leaderboard.domain.ledger.Ledgers.entry;
import static org.carla.leaderboard.domain.ledger.Ledgers.open;
import static org.carla.leaderboard.domain.ledger.Ledgers.pair;
import static org.carla.leaderboard.domain.ledger.Ledgers.run;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.ledger.ClaimPolicy.Turn;
import org.junit.jupiter.api.Test;

class ClaimPolicyTests {

    private Instant now = START.plus(Duration.ofMinutes(5));

    private Turn next(RunItem run, List<LedgerEntry> entries, Claimer pair) {
        return new ClaimPolicy(run, Clock.fixed(now, ZoneOffset.UTC)).next(entries, pair);
    }

    private static List<String> keys(Turn turn) {
        assertThat(turn).isInstanceOf(Turn.Try.class);
        return ((Turn.Try) turn).candidates().stream().map(e -> e.key().text()).toList();
    }

    @Test
    void dynamicTriesTheLongestExpectedFirstAndTiesInEntryOrder() {
        var entries = List.of(entry("10", 0, 300), entry("2", 0, 500), entry("7", 0, 300), entry("2", 1, 500),
                entry("1", 0, 50));

        assertThat(keys(next(run(Schedule.DYNAMIC, 5, 1, 4), entries, pair("pod-a", 0, 3))))
                .containsExactly("2#0", "2#1", "7#0", "10#0", "1#0");
    }

    @Test
    void aDoneEntryAndAClaimUnderItsLeaseAreNotTriedALapsedOneIs() {
        var entries = new ArrayList<>(open(4));
        Instant lease = now.plusSeconds(30);
        entries.set(0, done(entries.get(0)));
        entries.set(1, claimed(entries.get(1), pair("pod-a", 0, 1), lease));
        entries.set(2, claimed(entries.get(2), pair("pod-b", 1, 1), now.minusMillis(1)));
        RunItem run = run(Schedule.DYNAMIC, 4, 2, 1);

        assertThat(keys(next(run, entries, pair("pod-c", 1, 1)))).containsExactly("2#0", "3#0");
        // The lease has run out only once lease_until < now.
        now = lease;
        assertThat(keys(next(run, entries, pair("pod-c", 1, 1)))).containsExactly("2#0", "3#0");
        now = now.plus(Duration.ofMillis(1));
        assertThat(keys(next(run, entries, pair("pod-c", 1, 1)))).containsExactly("1#0", "2#0", "3#0");
    }

    @Test
    void staticGivesEachPairItsContiguousShareAsTheSeedsSplitTwentyRoutesOverFourPairs() {
        RunItem onePod = run(Schedule.STATIC, 20, 1, 4);
        List<LedgerEntry> entries = open(20);

        assertThat(keys(next(onePod, entries, pair("pod-a", 0, 1)))).containsExactly("0#0", "1#0", "2#0", "3#0", "4#0");
        assertThat(keys(next(onePod, entries, pair("pod-a", 0, 2)))).containsExactly("5#0", "6#0", "7#0", "8#0", "9#0");
        assertThat(keys(next(onePod, entries, pair("pod-a", 0, 4))))
                .containsExactly("15#0", "16#0", "17#0", "18#0", "19#0");
        // The same shares over all pairs of all pods: 4 pods of 1 pair, 2 pods of 2 pairs.
        assertThat(keys(next(run(Schedule.STATIC, 20, 4, 1), entries, pair("pod-c", 2, 1))))
                .containsExactly("10#0", "11#0", "12#0", "13#0", "14#0");
        assertThat(keys(next(run(Schedule.STATIC, 20, 2, 2), entries, pair("pod-b", 1, 1))))
                .containsExactly("10#0", "11#0", "12#0", "13#0", "14#0");
    }

    @Test
    void staticSplitsUnevenRoutesAsTheLeaderboardAndTakesEveryRepetitionWithItsRoute() {
        // Route ids as a routes file may hold them: not from 0, not in order; entry order is by number.
        var keys = new ArrayList<EntryKey>();
        for (String id : List.of("12", "3", "40", "7", "5")) {
            keys.add(new EntryKey(id, 0));
            keys.add(new EntryKey(id, 1));
        }

        // 5 routes on 3 pairs: 0-1, 2-3, 4 (job-launcher's RouteSubset.split(5, 3)); in route order 3, 5, 7, 12, 40.
        assertThat(ClaimPolicy.share(keys, 3)).isEqualTo(Map.of("3", 0, "5", 0, "7", 1, "12", 1, "40", 2));
        var entries = keys.stream().map(k -> entry(k.routeId(), k.repetition(), 100)).toList();
        assertThat(keys(next(run(Schedule.STATIC, 10, 1, 3), entries, pair("pod-a", 0, 2))))
                .containsExactly("7#0", "7#1", "12#0", "12#1");
    }

    @Test
    void staticPairsBeyondTheRoutesGetNothingAndAPairNeverTakesAnotherPairsShare() {
        RunItem run = run(Schedule.STATIC, 3, 1, 4);
        var entries = new ArrayList<>(open(3));

        assertThat(next(run, entries, pair("pod-a", 0, 4))).isEqualTo(new Turn.None(Optional.empty()));
        entries.set(0, done(entries.get(0)));
        assertThat(next(run, entries, pair("pod-a", 0, 1))).isEqualTo(new Turn.None(Optional.empty()));
        assertThat(keys(next(run, entries, pair("pod-a", 0, 2)))).containsExactly("1#0");
    }

    @Test
    void withNothingLeftAPairIsToldNoneEvenWhileOtherPodsStillDrive() {
        var entries = new ArrayList<>(open(3));
        entries.set(0, done(entries.get(0)));
        entries.set(1, claimed(entries.get(1), pair("pod-a", 0, 1), now.plusSeconds(60)));
        entries.set(2, done(entries.get(2)));

        // Another pod's claim under its lease: this pod's node is freed (that pod's replacement would take it over).
        assertThat(next(run(Schedule.DYNAMIC, 3, 2, 1), entries, pair("pod-b", 1, 1)))
                .isEqualTo(new Turn.None(Optional.empty()));
    }

    @Test
    void aReplacementPodWaitsForItsPredecessorsClaimThenTakesItOver() {
        var entries = new ArrayList<>(open(2));
        Instant lease = now.plusSeconds(90);
        entries.set(0, done(entries.get(0)));
        entries.set(1, claimed(entries.get(1), pair("pod-a-old", 0, 2), lease));
        // Pair 2 of the replacement: in the static schedule only it may take route 1 over.
        Claimer replacement = pair("pod-a-new", 0, 2);

        for (Schedule schedule : Schedule.values()) {
            assertThat(next(run(schedule, 2, 1, 2), entries, replacement)).isEqualTo(new Turn.Wait(lease.plusMillis(1)));
        }
        now = lease.plusMillis(1);
        assertThat(keys(next(run(Schedule.DYNAMIC, 2, 1, 2), entries, replacement))).containsExactly("1#0");
    }

    @Test
    void onceAnEntryGaveUpEveryPairIsToldNoneWithItsAttempts() {
        var entries = new ArrayList<>(open(3));
        LedgerEntry gaveUp = entries.get(1);
        var attempts = List.of(
                new Attempt("pod-a", 0, 1, "node-1", "GPU-1", START, START.plusSeconds(60),
                        AttemptOutcome.SIMULATOR_CRASH, "CARLA exited with 139", null),
                new Attempt("pod-a", 0, 2, "node-1", "GPU-2", START, START.plusSeconds(90),
                        AttemptOutcome.AGENT_CRASH, "the evaluator exited with 1", null));
        entries.set(1, gaveUp.with(EntryState.GAVE_UP, Optional.empty(), 2, 0, attempts, Optional.empty(), List.of()));

        Turn turn = next(run(Schedule.DYNAMIC, 3, 1, 4), entries, pair("pod-a", 0, 3));

        assertThat(turn).isEqualTo(new Turn.None(Optional.of("route 1 repetition 0 gave up after 2 attempts: "
                + "SIMULATOR_CRASH (CARLA exited with 139); AGENT_CRASH (the evaluator exited with 1)")));
    }

    @Test
    void aPairOutsideTheRunIsRefused() {
        assertThatThrownBy(() -> next(run(Schedule.DYNAMIC, 3, 1, 2), open(3), pair("pod-b", 1, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 pods");
        assertThatThrownBy(() -> next(run(Schedule.DYNAMIC, 3, 1, 2), open(3), pair("pod-a", 0, 3)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pair 3 of a pod with 2 pairs");
    }
}
