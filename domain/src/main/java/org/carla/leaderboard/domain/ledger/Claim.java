package org.carla.leaderboard.domain.ledger;

import java.time.Instant;

/**
 * An entry's claim, present while it is CLAIMED: who holds it ({@link Claimer}), the random token the claimer made
 * (only the holder of the token renews, files or releases), since when, and until when its lease runs (renewed by
 * every logcopy pass; a claim whose lease has run out may be taken over).
 */
public record Claim(String pod, int index, int pair, String token, Instant since, Instant leaseUntil) {

    public Claim {
        new Claimer(pod, index, pair); // the same rules
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("a claim holds its claimer's token");
        }
        if (since == null || leaseUntil == null) {
            throw new IllegalArgumentException("a claim holds its start and its lease's end");
        }
    }

    public static Claim of(Claimer claimer, String token, Instant since, Instant leaseUntil) {
        return new Claim(claimer.pod(), claimer.index(), claimer.pair(), token, since, leaseUntil);
    }

    public Claimer claimer() {
        return new Claimer(pod, index, pair);
    }

    /** The lease has run out: {@code lease_until < now}, as the claim's condition reads it. */
    public boolean lapsed(Instant now) {
        return leaseUntil.isBefore(now);
    }

    public Claim renewedUntil(Instant until) {
        return new Claim(pod, index, pair, token, since, until);
    }
}
