package org.carla.leaderboard.benchmarks;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.PriorityQueue;
import java.util.Set;

import org.carla.leaderboard.domain.ledger.AttemptOutcome;
import org.carla.leaderboard.domain.ledger.Claim;
import org.carla.leaderboard.domain.ledger.ClaimFiling;
import org.carla.leaderboard.domain.ledger.ClaimPolicy;
import org.carla.leaderboard.domain.ledger.ClaimPolicy.Turn;
import org.carla.leaderboard.domain.ledger.Claimer;
import org.carla.leaderboard.domain.ledger.EntryChanges;
import org.carla.leaderboard.domain.ledger.EntryChanges.Change;
import org.carla.leaderboard.domain.ledger.EntryKey;
import org.carla.leaderboard.domain.ledger.EntryState;
import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.ledger.LedgerMerge;
import org.carla.leaderboard.domain.ledger.PairPlacement;
import org.carla.leaderboard.domain.ledger.RetryBudget;
import org.carla.leaderboard.domain.ledger.RunItem;
import org.carla.leaderboard.domain.ledger.Schedule;
import org.carla.leaderboard.domain.record.GpuUsage;

/**
 * Benchmark 7's discrete-event simulation of one run of one submission: the pods' pairs ask {@link ClaimPolicy} for
 * their next route, claim, renew, file and release through {@link EntryChanges} on an in-memory ledger, on a simulated
 * clock; the GPU time is {@link GpuUsage#overPods}. Nothing of the schedule is modelled here: only when routes end,
 * when pods start and stop, and a spot interruption.
 *
 * <p>Costs, in seconds of wall time: a pod holds its node's GPUs from its start; its pairs ask for their first route
 * {@link #POD_START} later (CARLA starting). Under the dynamic schedule each claimed route costs
 * {@link #RESTART_COST} more (the evaluator starts again for each claim); under the static one it does not (the seeds'
 * evaluator drives its share in one process), which favours the static split. A spot interruption at {@code t}: the
 * pod's routes in flight stop, logcopy releases their claims ({@code INFRASTRUCTURE}) and the pod ends at t +
 * {@link #RELEASE}; its replacement (same index) gets a node at t + {@link #NEW_NODE} (the wait is not paid) and starts
 * like any pod.
 */
final class ClaimSimulation {

    static final double POD_START = 60;
    static final double RESTART_COST = 0.05;
    static final double RELEASE = 15;
    static final double NEW_NODE = 180;
    private static final Instant EPOCH = Instant.parse("2026-11-25T00:00:00Z");

    /** Pods × pairs per pod, and the GPUs of each pod's node. */
    record Shape(int pods, int pairsPerPod, int gpusPerPod) {

        int gpus() {
            return pods * gpusPerPod;
        }

        String text() {
            return pods + (pods == 1 ? " pod" : " pods") + " × " + pairsPerPod + (pairsPerPod == 1 ? " pair" : " pairs")
                    + " (" + gpusPerPod + " GPU" + (gpusPerPod == 1 ? "" : "s") + " each)";
        }
    }

    /** A spot interruption of pod {@code index} at {@code at} seconds. */
    record Interruption(int index, double at) {
    }

    /**
     * A run's figures: GPU-seconds, its end, each pod index's first end; for an interruption the routes then in flight,
     * their full wall times (what driving them again costs), and how many finished routes were driven again.
     */
    record Result(double gpuSeconds, double end, double[] firstEnds, int inFlight, double inFlightSeconds,
            int finishedDrivenAgain) {
    }

    private final Shape shape;
    private final Schedule schedule;
    private final RouteDurationModel.Routes routes;
    private final List<ClaimFiling.Accepted> filings;
    private final Map<EntryKey, Integer> routeIndex = new LinkedHashMap<>();
    private final Map<EntryKey, LedgerEntry> ledger = new LinkedHashMap<>();
    private final RunItem run;
    /** The simulation's time, fixed during each event: what the policy and the ledger's writes read. */
    private Clock clock = Clock.fixed(EPOCH, ZoneOffset.UTC);
    private ClaimPolicy policy;
    private EntryChanges changes;
    private final PriorityQueue<Event> events = new PriorityQueue<>(
            Comparator.comparingDouble(Event::at).thenComparingLong(Event::seq));
    private final List<GpuUsage.PodTime> podTimes = new ArrayList<>();
    private final Set<EntryKey> done = new HashSet<>();
    private final Pod[] pods;
    private final double[] firstEnds;
    private long seq;
    private long tokens;
    private double end;
    private int inFlight;
    private double inFlightSeconds;
    private int finishedDrivenAgain;

    /** @param filings the record each route's claim files, by route (its checkpoint as the evaluator writes it) */
    ClaimSimulation(Shape shape, Schedule schedule, RouteDurationModel.Routes routes,
            List<ClaimFiling.Accepted> filings) {
        this.shape = shape;
        this.schedule = schedule;
        this.routes = routes;
        this.filings = filings;
        int count = routes.seconds().length;
        for (int i = 0; i < count; i++) {
            var key = new EntryKey(Integer.toString(i), 0);
            routeIndex.put(key, i);
            ledger.put(key, LedgerEntry.open(key, "Town12", 0, routes.expected()[i]));
        }
        run = new RunItem(count, schedule, shape.pods(), shape.pairsPerPod(), EPOCH, OptionalInt.empty());
        setClock(0);
        pods = new Pod[shape.pods()];
        firstEnds = new double[shape.pods()];
        Arrays.fill(firstEnds, Double.NaN);
    }

    /** Runs the submission to its end, with the interruption if one is given. */
    Result run(Optional<Interruption> interruption) {
        for (int index = 0; index < shape.pods(); index++) {
            start(index, 0);
        }
        interruption.ifPresent(i -> at(i.at(), () -> interrupt(pods[i.index()], i.at())));
        while (!events.isEmpty()) {
            Event event = events.poll();
            setClock(event.at());
            event.action().run();
        }
        for (LedgerEntry entry : ledger.values()) {
            if (entry.state() != EntryState.DONE) {
                throw new IllegalStateException("the simulated run ended with entry " + entry.key() + " "
                        + entry.state());
            }
        }
        double gpuSeconds = GpuUsage.overPods(podTimes, clock.instant()) * 3600;
        return new Result(gpuSeconds, end, firstEnds.clone(), inFlight, inFlightSeconds, finishedDrivenAgain);
    }

    /** Whether the ledger merges to the run's complete results (every route's record, the global results). */
    boolean mergesComplete() {
        return LedgerMerge.merge(ledger.values(), ledger.size()).globalResults();
    }

    private void setClock(double seconds) {
        clock = Clock.fixed(toInstant(seconds), ZoneOffset.UTC);
        policy = new ClaimPolicy(run, clock);
        changes = new EntryChanges(EntryChanges.DEFAULT_LEASE, RetryBudget.of(4), clock);
    }

    private void start(int index, double running) {
        int generation = pods[index] == null ? 0 : pods[index].generation + 1;
        Pod pod = new Pod(index, "pod-" + index + "-" + generation, generation, running, shape.pairsPerPod());
        pods[index] = pod;
        for (int pair = 1; pair <= shape.pairsPerPod(); pair++) {
            int p = pair;
            at(running + POD_START, () -> ask(pod, p));
        }
    }

    private void ask(Pod pod, int pair) {
        if (pod.stopped) {
            return;
        }
        renewLiveClaims();
        var claimer = new Claimer(pod.name, pod.index, pair);
        Turn turn = policy.next(ledger.values(), claimer);
        if (turn instanceof Turn.Try attempt) {
            claimFirst(pod, pair, claimer, attempt.candidates());
        } else if (turn instanceof Turn.Wait wait) {
            at(seconds(wait.at()), () -> ask(pod, pair));
        } else {
            pod.told[pair - 1] = true;
            if (pod.allTold()) {
                stop(pod, now());
            }
        }
    }

    private void claimFirst(Pod pod, int pair, Claimer claimer, List<LedgerEntry> candidates) {
        for (LedgerEntry candidate : candidates) {
            String token = "t" + tokens++;
            if (changes.claim(candidate, claimer, token) instanceof Change.Written written) {
                ledger.put(candidate.key(), written.entry());
                if (written.entry().state() == EntryState.CLAIMED) {
                    if (done.contains(candidate.key())) {
                        finishedDrivenAgain++;
                    }
                    pod.claims[pair - 1] = written.entry().claim().orElseThrow();
                    pod.keys[pair - 1] = candidate.key();
                    at(now() + driveSeconds(candidate.key()), () -> routeEnds(pod, pair, candidate.key()));
                    return;
                }
            }
        }
        throw new IllegalStateException("no candidate could be claimed, with no other claimer: " + candidates);
    }

    private void routeEnds(Pod pod, int pair, EntryKey key) {
        if (pod.stopped) {
            return;
        }
        renewLiveClaims();
        Claim claim = pod.claims[pair - 1];
        Change change = changes.file(ledger.get(key), claim, PairPlacement.UNKNOWN, filings.get(routeIndex.get(key)));
        if (!(change instanceof Change.Written written) || written.entry().state() != EntryState.DONE) {
            throw new IllegalStateException("filing " + key + " failed: " + change);
        }
        ledger.put(key, written.entry());
        done.add(key);
        pod.claims[pair - 1] = null;
        pod.keys[pair - 1] = null;
        ask(pod, pair);
    }

    /** Every live pod's logcopy renews its claims every pass; here, whenever the ledger is looked at. */
    private void renewLiveClaims() {
        for (Pod pod : pods) {
            if (pod.stopped) {
                continue;
            }
            for (int i = 0; i < pod.claims.length; i++) {
                if (pod.claims[i] != null
                        && changes.renew(ledger.get(pod.keys[i]), pod.claims[i]) instanceof Change.Written renewed) {
                    ledger.put(pod.keys[i], renewed.entry());
                    pod.claims[i] = renewed.entry().claim().orElseThrow();
                }
            }
        }
    }

    private void interrupt(Pod pod, double t) {
        if (pod.stopped) {
            throw new IllegalStateException("pod " + pod.name + " was interrupted after its end");
        }
        pod.stopped = true;
        for (EntryKey key : pod.keys) {
            if (key != null) {
                inFlight++;
                // What driving it again costs: its time on its share of the node's GPUs.
                inFlightSeconds += driveSeconds(key) * shape.gpusPerPod() / shape.pairsPerPod();
            }
        }
        at(t + RELEASE, () -> {
            for (int i = 0; i < pod.claims.length; i++) {
                if (pod.claims[i] != null && changes.release(ledger.get(pod.keys[i]), pod.claims[i],
                        PairPlacement.UNKNOWN, AttemptOutcome.INFRASTRUCTURE, "SIGTERM: spot interruption")
                                instanceof Change.Written released) {
                    ledger.put(pod.keys[i], released.entry());
                }
            }
            ended(pod, t + RELEASE);
        });
        at(t + NEW_NODE, () -> start(pod.index, t + NEW_NODE));
    }

    private void stop(Pod pod, double t) {
        pod.stopped = true;
        ended(pod, t);
    }

    private void ended(Pod pod, double t) {
        podTimes.add(new GpuUsage.PodTime(toInstant(pod.running), toInstant(t), shape.gpusPerPod()));
        end = Math.max(end, t);
        if (Double.isNaN(firstEnds[pod.index])) {
            firstEnds[pod.index] = t;
        }
    }

    private double driveSeconds(EntryKey key) {
        double seconds = routes.seconds()[routeIndex.get(key)];
        return schedule == Schedule.DYNAMIC ? seconds * (1 + RESTART_COST) : seconds;
    }

    private void at(double t, Runnable action) {
        events.add(new Event(t, seq++, action));
    }

    private double now() {
        return seconds(clock.instant());
    }

    private static Instant toInstant(double seconds) {
        return EPOCH.plusMillis(Math.round(seconds * 1000));
    }

    private static double seconds(Instant instant) {
        return Duration.between(EPOCH, instant).toMillis() / 1000.0;
    }

    private record Event(double at, long seq, Runnable action) {
    }

    /** One pod of an index: its pairs' claims and whether each was told {@code none}. */
    private static final class Pod {
        final int index;
        final String name;
        final int generation;
        final double running;
        /** Each pair's claim in flight and its entry, {@code null} while the pair has none. */
        final Claim[] claims;
        final EntryKey[] keys;
        final boolean[] told;
        boolean stopped;

        Pod(int index, String name, int generation, double running, int pairs) {
            this.index = index;
            this.name = name;
            this.generation = generation;
            this.running = running;
            this.claims = new Claim[pairs];
            this.keys = new EntryKey[pairs];
            this.told = new boolean[pairs];
        }

        boolean allTold() {
            for (boolean t : told) {
                if (!t) {
                    return false;
                }
            }
            return true;
        }
    }
}
