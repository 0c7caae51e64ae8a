package org.carla.leaderboard.domain.ledger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The four writes of an entry — claim, renew, file, release — as what each makes of the entry as read, or why it is
 * refused (its condition fails: nothing is written). The table's store makes each one conditional write with the same
 * outcome, so every pod and every replacement agrees; the benchmark's simulation applies them in memory.
 *
 * <ul>
 * <li><b>claim</b>: an OPEN entry, or a CLAIMED one whose lease has run out (its attempt is appended as
 * {@code INFRASTRUCTURE}, one more {@code infra_tries}; past the bound the entry gives up instead of being claimed).
 * <li><b>renew</b>: only the holder of the claim's token; the lease runs {@code lease} from now.
 * <li><b>file</b>: the holder files the claim's record: DONE, the attempt appended. On an entry already DONE the
 * attempt is appended as {@code DUPLICATE} and the record stays: the first attempt filed DONE is the route's record.
 * <li><b>release</b>: the holder gives the claim back after a failed attempt: OPEN again, or GAVE_UP when the attempt
 * spent the retry budget; the attempt appended, its counter raised.
 * </ul>
 * A claim that is no longer its holder's (taken over after its lease ran out) can be neither renewed, filed nor
 * released: its attempt was appended by the pair that took it over.
 */
public final class EntryChanges {

    /** How long a claim holds without renewal ({@code ROUTE_LEASE}). */
    public static final Duration DEFAULT_LEASE = Duration.ofMinutes(2);

    private final Duration lease;
    private final RetryBudget budget;
    private final Clock clock;

    public EntryChanges(Duration lease, RetryBudget budget, Clock clock) {
        if (lease == null || lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("a claim's lease is longer than zero, was " + lease);
        }
        this.lease = lease;
        this.budget = budget;
        this.clock = clock;
    }

    /** What a write made of the entry, or why its condition failed. */
    public sealed interface Change {

        /** The entry after the write. */
        record Written(LedgerEntry entry) implements Change {
        }

        /** The write's condition failed; the entry is as it was. */
        record Refused(String reason) implements Change {
        }
    }

    /** Claims the entry for the pair with its new token; the claim is {@code entry().claim()} of the result. */
    public Change claim(LedgerEntry entry, Claimer claimer, String token) {
        Instant now = clock.instant();
        if (!entry.claimable(now)) {
            return refused(entry, "is " + entry.state() + (entry.claim().isPresent() ? " until "
                    + entry.claim().get().leaseUntil() : ""));
        }
        Claim claim = Claim.of(claimer, token, now, now.plus(lease));
        if (entry.state() == EntryState.OPEN) {
            return written(entry.with(EntryState.CLAIMED, Optional.of(claim), entry.tries(), entry.infraTries(),
                    entry.attempts(), Optional.empty(), List.of()));
        }
        Claim lapsed = entry.claim().orElseThrow();
        Attempt lost = Attempt.of(lapsed, PairPlacement.UNKNOWN, lapsed.leaseUntil(), AttemptOutcome.INFRASTRUCTURE,
                "lease lapsed at " + lapsed.leaseUntil() + " without renewal; taken over by " + claimer, null);
        int infraTries = entry.infraTries() + 1;
        boolean gaveUp = budget.spent(entry.tries(), infraTries);
        return written(entry.with(gaveUp ? EntryState.GAVE_UP : EntryState.CLAIMED,
                gaveUp ? Optional.empty() : Optional.of(claim), entry.tries(), infraTries, entry.attemptsWith(lost),
                Optional.empty(), List.of()));
    }

    /** Extends the lease of the pair's own claim. */
    public Change renew(LedgerEntry entry, Claim mine) {
        if (!holds(entry, mine)) {
            return notHeld(entry, mine);
        }
        Claim renewed = entry.claim().orElseThrow().renewedUntil(clock.instant().plus(lease));
        return written(entry.with(EntryState.CLAIMED, Optional.of(renewed), entry.tries(), entry.infraTries(),
                entry.attempts(), Optional.empty(), List.of()));
    }

    /** Files the record of the pair's claim (checked and renamed by {@link ClaimFiling}). */
    public Change file(LedgerEntry entry, Claim mine, PairPlacement placement, ClaimFiling.Accepted filed) {
        Double speed = Attempt.simSpeed(filed.record());
        if (entry.state() == EntryState.DONE) {
            Attempt duplicate = Attempt.of(mine, placement, clock.instant(), AttemptOutcome.DUPLICATE,
                    "another attempt filed this route first", speed);
            return written(entry.with(EntryState.DONE, Optional.empty(), entry.tries(), entry.infraTries(),
                    entry.attemptsWith(duplicate), entry.record(), entry.sensors()));
        }
        if (!holds(entry, mine)) {
            return notHeld(entry, mine);
        }
        Attempt done = Attempt.of(mine, placement, clock.instant(), AttemptOutcome.DONE, "", speed);
        return written(entry.with(EntryState.DONE, Optional.empty(), entry.tries(), entry.infraTries(),
                entry.attemptsWith(done), Optional.of(filed.record()), filed.sensors()));
    }

    /** Gives the pair's claim back after a failed attempt: OPEN, or GAVE_UP when the budget is spent. */
    public Change release(LedgerEntry entry, Claim mine, PairPlacement placement, AttemptOutcome outcome,
            String reason) {
        if (!outcome.failure()) {
            throw new IllegalArgumentException("a claim is released after a failed attempt, not " + outcome);
        }
        if (!holds(entry, mine)) {
            return notHeld(entry, mine);
        }
        int tries = entry.tries() + (outcome.charge() == AttemptOutcome.Charge.TRIES ? 1 : 0);
        int infraTries = entry.infraTries() + (outcome.charge() == AttemptOutcome.Charge.INFRA_TRIES ? 1 : 0);
        Attempt failed = Attempt.of(mine, placement, clock.instant(), outcome, reason, null);
        return written(entry.with(budget.spent(tries, infraTries) ? EntryState.GAVE_UP : EntryState.OPEN,
                Optional.empty(), tries, infraTries, entry.attemptsWith(failed), Optional.empty(), List.of()));
    }

    private static boolean holds(LedgerEntry entry, Claim mine) {
        return entry.state() == EntryState.CLAIMED && entry.claim().orElseThrow().token().equals(mine.token());
    }

    private static Change notHeld(LedgerEntry entry, Claim mine) {
        return refused(entry, "is no longer claimed by " + mine.claimer() + " (now " + entry.state()
                + entry.claim().map(c -> " by " + c.claimer()).orElse("") + ")");
    }

    private static Change written(LedgerEntry entry) {
        return new Change.Written(entry);
    }

    private static Change refused(LedgerEntry entry, String why) {
        return new Change.Refused("entry " + entry.key() + " " + why);
    }
}
