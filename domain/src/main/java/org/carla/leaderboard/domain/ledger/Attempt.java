package org.carla.leaderboard.domain.ledger;

import java.time.Duration;
import java.time.Instant;

import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.domain.results.RouteRecordCheck;

/**
 * One attempt at an entry, appended to its {@code attempts} when it ends: who drove it and where, from when to when,
 * how it ended and why (one printable line of at most {@value RouteRecordCheck#MAX_TEXT} characters), and for a filed
 * record the simulation's speed (the record's {@code duration_game ÷ duration_system}).
 *
 * @param node     {@code null} when not known
 * @param gpu      {@code null} when not known
 * @param simSpeed {@code null} unless the attempt filed a record whose system duration is above zero
 */
public record Attempt(String pod, int index, int pair, String node, String gpu, Instant started, Instant ended,
        AttemptOutcome outcome, String reason, Double simSpeed) {

    public Attempt {
        new Claimer(pod, index, pair); // the same rules
        if (started == null || ended == null || outcome == null) {
            throw new IllegalArgumentException("an attempt holds its start, its end and its outcome");
        }
        reason = oneLine(reason);
    }

    /** The attempt of a claim that ends now. */
    static Attempt of(Claim claim, PairPlacement placement, Instant ended, AttemptOutcome outcome, String reason,
            Double simSpeed) {
        return new Attempt(claim.pod(), claim.index(), claim.pair(), placement.node(), placement.gpu(), claim.since(),
                ended, outcome, reason, simSpeed);
    }

    /** The attempt's wall time in seconds ({@code duration_s}); zero when its end is not after its start. */
    public double durationSeconds() {
        return ended.isAfter(started) ? Duration.between(started, ended).toMillis() / 1000.0 : 0;
    }

    /** {@code duration_game ÷ duration_system} of a record; {@code null} when its system duration is not above zero. */
    public static Double simSpeed(RouteRecord record) {
        double system = record.meta().durationSystem();
        return system > 0 ? record.meta().durationGame() / system : null;
    }

    /** One printable line: a reason may quote what a participant's process wrote (its exit, its last words). */
    private static String oneLine(String reason) {
        return reason == null ? "" : RouteRecordCheck.printable(reason.replaceAll("\\s+", " ").strip());
    }
}
