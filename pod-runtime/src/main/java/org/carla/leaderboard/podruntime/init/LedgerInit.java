package org.carla.leaderboard.podruntime.init;

import static org.carla.leaderboard.domain.pod.PodEnvironment.CHALLENGE_TRACK_CODENAME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.EXPECTED_ROUTES;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEADERBOARD;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEDGER_TABLE;
import static org.carla.leaderboard.domain.pod.PodEnvironment.PODS;
import static org.carla.leaderboard.domain.pod.PodEnvironment.REPETITIONS;
import static org.carla.leaderboard.domain.pod.PodEnvironment.ROUTES;
import static org.carla.leaderboard.domain.pod.PodEnvironment.RUN;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SCHEDULE;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SUBMISSION_ID;
import static org.carla.leaderboard.domain.pod.PodEnvironment.WORKER_PAIRS;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;

import org.carla.leaderboard.domain.ledger.EntryKey;
import org.carla.leaderboard.domain.ledger.ExpectedDuration;
import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.ledger.RouteDurations;
import org.carla.leaderboard.domain.ledger.RouteLedgerTable;
import org.carla.leaderboard.domain.ledger.RunItem;
import org.carla.leaderboard.domain.ledger.Schedule;
import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.route.Route;
import org.carla.leaderboard.domain.route.RoutesFile;
import org.carla.leaderboard.podruntime.ledger.RouteLedger;

/**
 * init's part of the route ledger: with {@code LEDGER_TABLE} set, the run's ledger is made before any pair starts —
 * an entry per route of the routes file × repetition, each expected to take the track's recorded mean for the route,
 * else its length at {@link ExpectedDuration#NOMINAL_SPEED}, then the run item. Every pod of the run does it; the first
 * one's items stay ({@link RouteLedger#create}).
 *
 * @param routes the routes file as init sees it, in the Leaderboard image
 */
public record LedgerInit(String table, String partition, String trackPartition, Path routes, int repetitions,
        Schedule schedule, int pods, int pairsPerPod, OptionalInt expectedRoutes) {

    /**
     * The settings from the pod's environment; empty without {@code LEDGER_TABLE}.
     * @throws IllegalArgumentException naming the variable at fault
     */
    public static Optional<LedgerInit> from(Map<String, String> env) {
        Optional<String> table = PodEnvironment.value(env, LEDGER_TABLE);
        if (table.isEmpty()) {
            return Optional.empty();
        }
        String leaderboard = PodEnvironment.required(env, LEADERBOARD);
        String submission = PodEnvironment.required(env, SUBMISSION_ID);
        int run = PodEnvironment.positive(env, RUN).orElse(1);
        String scheduleText = PodEnvironment.value(env, SCHEDULE).orElse(Schedule.DYNAMIC.value());
        Schedule schedule = Schedule.parse(scheduleText).orElseThrow(() -> new IllegalArgumentException(SCHEDULE
                + " is dynamic or static, not " + scheduleText));
        String track = PodEnvironment.value(env, CHALLENGE_TRACK_CODENAME).orElse("SENSORS");
        String partition;
        String trackPartition;
        try {
            partition = RouteLedgerTable.ledgerPartition(leaderboard, submission, run);
            trackPartition = RouteLedgerTable.trackPartition(leaderboard, track);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(LEADERBOARD + ", " + SUBMISSION_ID + ", " + CHALLENGE_TRACK_CODENAME
                    + ": " + e.getMessage());
        }
        OptionalInt expected = PodEnvironment.positive(env, EXPECTED_ROUTES).map(OptionalInt::of)
                .orElse(OptionalInt.empty());
        return Optional.of(new LedgerInit(table.get(), partition, trackPartition,
                Path.of(PodEnvironment.required(env, ROUTES)), PodEnvironment.positive(env, REPETITIONS).orElse(1),
                schedule, PodEnvironment.positive(env, PODS).orElse(1), PodEnvironment.positive(env, WORKER_PAIRS)
                        .orElse(1), expected));
    }

    /**
     * The run's entries: the routes file's routes × repetitions, with their expected durations.
     * @throws IllegalArgumentException when the routes file is unreadable or does not hold the run's routes
     */
    public List<LedgerEntry> entries(Map<String, RouteDurations> recorded) {
        RoutesFile file;
        try {
            file = RoutesFile.read(routes);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the routes file " + routes + " (" + ROUTES + "): "
                    + e.getClass().getSimpleName() + " " + e.getMessage());
        }
        if (expectedRoutes.isPresent() && (long) file.size() * repetitions != expectedRoutes.getAsInt()) {
            throw new IllegalArgumentException("the routes file " + routes + " holds " + file.size() + " routes × "
                    + repetitions + " repetitions, the run expects " + expectedRoutes.getAsInt() + " route records ("
                    + EXPECTED_ROUTES + ")");
        }
        Map<String, Route> byId = new HashMap<>();
        file.routes().forEach(route -> byId.put(route.id(), route));
        var entries = new ArrayList<LedgerEntry>();
        for (EntryKey key : EntryKey.of(file.routes().stream().map(Route::id).toList(), repetitions)) {
            Route route = byId.get(key.routeId());
            double expected = ExpectedDuration.seconds(recorded.getOrDefault(key.routeId(), RouteDurations.NONE),
                    route.length(), ExpectedDuration.NOMINAL_SPEED);
            entries.add(LedgerEntry.open(key, route.town(), route.length(), expected));
        }
        return entries;
    }

    /** Makes the ledger (or finds the one another pod made); the run item as stored. */
    public RunItem make(Function<String, RouteLedger> ledgers, Clock clock) {
        RouteLedger ledger = ledgers.apply(partition);
        List<LedgerEntry> entries = entries(ledger.durations(trackPartition));
        return ledger.create(new RunItem(entries.size(), schedule, pods, pairsPerPod, clock.instant(),
                OptionalInt.empty()), entries);
    }
}
