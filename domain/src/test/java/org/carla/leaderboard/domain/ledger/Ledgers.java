package org.carla.leaderboard.domain.ledger;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.GlobalStatistics;
import org.carla.leaderboard.domain.results.RouteRecord;

/** Ledgers, claims and claim checkpoints for the tests. */
final class Ledgers {

    static final Instant START = Instant.parse("2026-11-25T10:00:00Z");
    static final List<String> SENSORS = List.of("carla_camera", "carla_lidar", "carla_gnss", "carla_imu",
            "carla_speedometer");

    private Ledgers() {
    }

    static RunItem run(Schedule schedule, int total, int pods, int pairsPerPod) {
        return new RunItem(total, schedule, pods, pairsPerPod, START, OptionalInt.empty());
    }

    /** OPEN entries of routes 0 .. n − 1, one repetition, each expected {@code 100 s} unless given. */
    static List<LedgerEntry> open(int routes) {
        var entries = new ArrayList<LedgerEntry>();
        for (int i = 0; i < routes; i++) {
            entries.add(entry(Integer.toString(i), 0, 100));
        }
        return entries;
    }

    static LedgerEntry entry(String routeId, int repetition, double expectedSeconds) {
        return LedgerEntry.open(new EntryKey(routeId, repetition), "Town12", expectedSeconds * 1.5, expectedSeconds);
    }

    static LedgerEntry claimed(LedgerEntry entry, Claimer claimer, Instant leaseUntil) {
        Claim claim = Claim.of(claimer, "token-" + claimer.pod() + "-" + claimer.pair(), START, leaseUntil);
        return entry.with(EntryState.CLAIMED, Optional.of(claim), 0, 0, List.of(), Optional.empty(), List.of());
    }

    static LedgerEntry done(LedgerEntry entry) {
        RouteRecord record = record(entry.key().recordRouteId(), 100);
        return entry.with(EntryState.DONE, Optional.empty(), 0, 0, List.of(), Optional.of(record), SENSORS);
    }

    /** A finished route as the evaluator records it: driving score {@code score}, 200 s of game time in 400 s. */
    static RouteRecord record(String routeId, double score) {
        return new RouteRecord(0, routeId, score == 100 ? "Perfect" : "Completed", 0, RouteRecord.emptyInfractions(),
                new RouteRecord.Scores(100, score / 100, score), new RouteRecord.Meta(1200, 200, 400));
    }

    /** The checkpoint the evaluator writes after driving the given records, with their global results. */
    static CheckpointFile checkpoint(List<String> sensors, RouteRecord... records) {
        List<RouteRecord> list = List.of(records);
        return CheckpointFile.started(sensors, List.of(list.size(), list.size()), list)
                .withGlobalResults(GlobalStatistics.compute(list, list.size()));
    }

    static Claimer pair(String pod, int index, int pair) {
        return new Claimer(pod, index, pair);
    }
}
