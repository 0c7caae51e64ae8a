package org.carla.leaderboard.console.service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.carla.leaderboard.domain.ledger.Attempt;
import org.carla.leaderboard.domain.ledger.LedgerEntry;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One attempt at a route of a run whose routes were claimed, as the route ledger recorded it: which pair of which pod
 * drove it, where, from when to when, how it ended and why. A claim held now is an attempt without an end. The ops
 * page draws them as a timeline of routes per pair.
 *
 * @param entry    the ledger entry ({@code <route id>#<repetition>})
 * @param lane     the pair's lane: {@code pod <index> · pair <n>}
 * @param ended    {@code null} while the claim is held
 * @param outcome  {@code AttemptOutcome} name; {@code CLAIMED} while held
 * @param simSpeed sim time ÷ wall time of a filed record, else {@code null}
 */
@RegisterForReflection
public record RouteAttempt(String entry, String routeId, int repetition, String lane, String pod, String node,
        String gpu, Instant started, Instant ended, String outcome, String reason, Double simSpeed) {

    /** Every attempt of the entries and every claim held now, by lane then start. */
    public static List<RouteAttempt> of(List<LedgerEntry> entries) {
        var attempts = new ArrayList<RouteAttempt>();
        for (LedgerEntry entry : entries) {
            for (Attempt attempt : entry.attempts()) {
                attempts.add(new RouteAttempt(entry.key().text(), entry.key().routeId(), entry.key().repetition(),
                        laneOf(attempt.index(), attempt.pair()), attempt.pod(), attempt.node(), attempt.gpu(),
                        attempt.started(), attempt.ended(), attempt.outcome().name(), attempt.reason(),
                        attempt.simSpeed()));
            }
            entry.claim().ifPresent(claim -> attempts.add(new RouteAttempt(entry.key().text(), entry.key().routeId(),
                    entry.key().repetition(), laneOf(claim.index(), claim.pair()), claim.pod(), null, null,
                    claim.since(), null, "CLAIMED", "", null)));
        }
        attempts.sort(Comparator.comparing((RouteAttempt attempt) -> attempt.lane())
                .thenComparing(RouteAttempt::started));
        return attempts;
    }

    private static String laneOf(int index, int pair) {
        return "pod " + index + " · pair " + pair;
    }
}
