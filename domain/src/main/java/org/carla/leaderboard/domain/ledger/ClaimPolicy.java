package org.carla.leaderboard.domain.ledger;

import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Which entries a free pair tries to claim, in order, given the ledger as read (a consistent read of every entry) and
 * the run's schedule:
 * <ul>
 * <li>{@code dynamic}: every claimable entry (OPEN, or CLAIMED under a lapsed lease), the longest expected first, ties
 * in entry order;
 * <li>{@code static}: the seeds' layout: the routes in entry order are split into contiguous shares over all pairs of
 * all pods ({@link #share}: 20 routes on 4 pairs are 0-4, 5-9, 10-14, 15-19; every repetition of a route goes with
 * it), and a pair claims only its own share, in entry order.
 * </ul>
 * A pair is told to wait, rather than {@code none}, while an entry it may claim is held by a pod its own pod replaced
 * (same index, another pod: the Job's replacement may start before its predecessor has released or its lease has run
 * out, and in the static schedule no other pair would ever take that entry over). Otherwise, with nothing to claim, it is
 * told {@code none}. Once an entry has given up, every pair is told {@code none}: the run cannot finish.
 */
public final class ClaimPolicy {

    private final RunItem run;
    private final Clock clock;

    public ClaimPolicy(RunItem run, Clock clock) {
        this.run = run;
        this.clock = clock;
    }

    /** What the pair is told. */
    public sealed interface Turn {

        /** Claim the first of these that a conditional claim still gets (a claim lost to a race takes the next). */
        record Try(List<LedgerEntry> candidates) implements Turn {

            public Try {
                candidates = List.copyOf(candidates);
            }
        }

        /** Ask again at {@code at}: the first moment a predecessor's claim may be taken over. */
        record Wait(Instant at) implements Turn {
        }

        /** Nothing is left for the pair; {@code cannotFinish} says why the run cannot finish when an entry gave up. */
        record None(Optional<String> cannotFinish) implements Turn {
        }
    }

    public Turn next(Collection<LedgerEntry> entries, Claimer pair) {
        if (pair.index() >= run.pods()) {
            throw new IllegalArgumentException(pair + " is not of this run of " + run.pods() + " pods");
        }
        int runPair = pair.runPair(run.pairsPerPod());
        Optional<LedgerEntry> gaveUp = entries.stream().filter(e -> e.state() == EntryState.GAVE_UP)
                .min(Comparator.comparing(LedgerEntry::key));
        if (gaveUp.isPresent()) {
            return new Turn.None(Optional.of(gaveUp.get().gaveUpReason()));
        }
        Instant now = clock.instant();
        List<LedgerEntry> mayClaim = entries.stream()
                .filter(run.schedule() == Schedule.STATIC ? ownShare(entries, runPair) : e -> true).toList();
        List<LedgerEntry> candidates = mayClaim.stream().filter(e -> e.claimable(now)).sorted(order()).toList();
        if (!candidates.isEmpty()) {
            return new Turn.Try(candidates);
        }
        Optional<Instant> predecessor = mayClaim.stream().flatMap(e -> e.claim().stream()).filter(pair::replaced)
                .map(Claim::leaseUntil).min(Comparator.naturalOrder());
        if (predecessor.isPresent()) {
            return new Turn.Wait(predecessor.get().plusMillis(1));
        }
        return new Turn.None(Optional.empty());
    }

    /**
     * The run pair (from 0: pod index × pairs per pod + pair − 1) whose share holds each route of the static schedule:
     * the routes in entry order, route j of R on the u = min(R, pairs) first pairs goes to pair ⌊j·u/R⌋, which gives
     * pair i the routes ⌈i·R/u⌉ … ⌈(i+1)·R/u⌉ − 1: the seeds' split of a routes file over worker pairs.
     */
    public static Map<String, Integer> share(Collection<EntryKey> keys, int pairs) {
        var routes = new TreeSet<EntryKey>();
        keys.forEach(key -> routes.add(new EntryKey(key.routeId(), 0)));
        int count = routes.size();
        long used = Math.min(count, pairs);
        var owners = new LinkedHashMap<String, Integer>();
        int position = 0;
        for (EntryKey route : routes) {
            owners.put(route.routeId(), (int) (position * used / count));
            position++;
        }
        return owners;
    }

    private Predicate<LedgerEntry> ownShare(Collection<LedgerEntry> entries, int runPair) {
        Map<String, Integer> owners = share(entries.stream().map(LedgerEntry::key).toList(), run.pairs());
        return entry -> owners.get(entry.key().routeId()) == runPair;
    }

    private Comparator<LedgerEntry> order() {
        Comparator<LedgerEntry> entryOrder = Comparator.comparing(LedgerEntry::key);
        if (run.schedule() == Schedule.STATIC) {
            return entryOrder;
        }
        return Comparator.comparingDouble(LedgerEntry::expectedSeconds).reversed().thenComparing(entryOrder);
    }
}
