package org.carla.leaderboard.domain.ledger;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.domain.results.RouteRecord;

/**
 * One entry of a run's route ledger, as read: its key, state, the route's town and length (from the routes file), its
 * expected duration ({@link ExpectedDuration}), the claim while CLAIMED, the two failure counters, every attempt, and
 * once DONE the route's record (its route id already {@code _rep<k>}) with the checkpoint's sensors.
 *
 * <p>The states and what they hold: OPEN and GAVE_UP hold no claim and no record; CLAIMED holds a claim; DONE holds a
 * record and no claim. An item that breaks this is refused, naming the entry.
 */
public record LedgerEntry(EntryKey key, EntryState state, String town, double lengthMetres, double expectedSeconds,
        Optional<Claim> claim, int tries, int infraTries, List<Attempt> attempts, Optional<RouteRecord> record,
        List<String> sensors) {

    public LedgerEntry {
        if (key == null || state == null) {
            throw new IllegalArgumentException("a ledger entry holds its key and its state");
        }
        town = town == null ? "" : town;
        claim = claim == null ? Optional.empty() : claim;
        record = record == null ? Optional.empty() : record;
        attempts = attempts == null ? List.of() : List.copyOf(attempts);
        sensors = sensors == null ? List.of() : List.copyOf(sensors);
        if (!finiteFromZero(lengthMetres) || !finiteFromZero(expectedSeconds)) {
            throw new IllegalArgumentException("entry " + key + ": length and expected duration are numbers from 0, were "
                    + lengthMetres + " m and " + expectedSeconds + " s");
        }
        if (tries < 0 || infraTries < 0) {
            throw new IllegalArgumentException("entry " + key + ": negative tries");
        }
        if (claim.isPresent() != (state == EntryState.CLAIMED)) {
            throw new IllegalArgumentException("entry " + key + " is " + state + (claim.isPresent() ? " with" : " without")
                    + " a claim");
        }
        if (record.isPresent() != (state == EntryState.DONE)) {
            throw new IllegalArgumentException("entry " + key + " is " + state + (record.isPresent() ? " with" : " without")
                    + " a record");
        }
    }

    private static boolean finiteFromZero(double value) {
        return Double.isFinite(value) && value >= 0;
    }

    /** A new entry, as init creates it. */
    public static LedgerEntry open(EntryKey key, String town, double lengthMetres, double expectedSeconds) {
        return new LedgerEntry(key, EntryState.OPEN, town, lengthMetres, expectedSeconds, Optional.empty(), 0, 0,
                List.of(), Optional.empty(), List.of());
    }

    /** Whether a pair may claim it now: OPEN, or CLAIMED under a lease that has run out. */
    public boolean claimable(Instant now) {
        return state == EntryState.OPEN || state == EntryState.CLAIMED && claim.orElseThrow().lapsed(now);
    }

    /** Why it gave up, for the participant: its attempts' outcomes and reasons, oldest first. */
    public String gaveUpReason() {
        var lines = new ArrayList<String>(attempts.size());
        for (Attempt attempt : attempts) {
            lines.add(attempt.outcome() + (attempt.reason().isEmpty() ? "" : " (" + attempt.reason() + ")"));
        }
        return "route " + key.routeId() + " repetition " + key.repetition() + " gave up after " + attempts.size()
                + " attempts: " + String.join("; ", lines);
    }

    LedgerEntry with(EntryState newState, Optional<Claim> newClaim, int newTries, int newInfraTries,
            List<Attempt> newAttempts, Optional<RouteRecord> newRecord, List<String> newSensors) {
        return new LedgerEntry(key, newState, town, lengthMetres, expectedSeconds, newClaim, newTries, newInfraTries,
                newAttempts, newRecord, newSensors);
    }

    List<Attempt> attemptsWith(Attempt attempt) {
        var all = new ArrayList<Attempt>(attempts.size() + 1);
        all.addAll(attempts);
        all.add(attempt);
        return all;
    }
}
