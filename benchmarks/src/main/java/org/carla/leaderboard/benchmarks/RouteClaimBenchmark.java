package org.carla.leaderboard.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;

import org.carla.leaderboard.benchmarks.ClaimSimulation.Interruption;
import org.carla.leaderboard.benchmarks.ClaimSimulation.Result;
import org.carla.leaderboard.benchmarks.ClaimSimulation.Shape;
import org.carla.leaderboard.domain.ledger.ClaimFiling;
import org.carla.leaderboard.domain.ledger.EntryKey;
import org.carla.leaderboard.domain.ledger.Schedule;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.GlobalStatistics;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.localstack.standin.RouteOutcome;

/**
 * Benchmark 7: the GPU time of a submission whose pairs claim routes from the ledger (the dynamic schedule) beside the
 * static split of the seeds, on the same routes in the same run, for 20 routes on 1 pod × 4 pairs and on 4 pods × 1
 * pair; and what a spot interruption at a random moment costs. Each simulated submission draws its routes from
 * {@link RouteDurationModel} and is run by {@link ClaimSimulation}, whose scheduler is domain's {@code ClaimPolicy}.
 *
 * <p>7a: GPU-seconds ÷ the ideal, the GPUs × (the pod's start + the larger of Σ route times ÷ GPUs and the longest
 * route). 7b: the same submission run again with one pod interrupted (a pod drawn at random, at a moment drawn at
 * random while it drives): the GPU-seconds it added, per route then in flight, and against what driving those routes
 * again and starting the replacement pod cost.
 */
final class RouteClaimBenchmark {

    private static final int ROUTES = 20;
    private static final double TARGET = 1.10;
    private static final List<Shape> SHAPES = List.of(new Shape(1, 4, 4), new Shape(4, 1, 1));
    private static final List<RouteDurationModel> MODELS = List.of(new RouteDurationModel(0.6, 0),
            new RouteDurationModel(1.0, 0), new RouteDurationModel(0.6, 0.05), new RouteDurationModel(1.0, 0.05));
    /** The interruptions are drawn on the hardest model. */
    private static final RouteDurationModel INTERRUPTED = MODELS.get(3);

    private final BenchmarkRun.Context context;
    private final List<ClaimFiling.Accepted> filings = filings();

    RouteClaimBenchmark(BenchmarkRun.Context context) {
        this.context = context;
    }

    void run() {
        int submissions = context.size().pick(100, 1_000, 10_000);
        long seed = 7;
        for (Shape shape : SHAPES) {
            for (RouteDurationModel model : MODELS) {
                gpuTime(shape, model, submissions, new Random(seed++));
            }
        }
        for (Shape shape : SHAPES) {
            interruptions(shape, submissions, new Random(seed++));
        }
    }

    private void gpuTime(Shape shape, RouteDurationModel model, int submissions, Random random) {
        var ratios = new Samples[] { new Samples(), new Samples() };
        var ends = new Samples[] { new Samples(), new Samples() };
        for (int s = 0; s < submissions; s++) {
            RouteDurationModel.Routes routes = model.draw(ROUTES, random);
            double idealEnd = ClaimSimulation.POD_START + Math.max(routes.sum() / shape.gpus(), routes.longest());
            for (Schedule schedule : Schedule.values()) {
                var simulation = new ClaimSimulation(shape, schedule, routes, filings);
                Result result = simulation.run(Optional.empty());
                if (s == 0 && !simulation.mergesComplete()) {
                    throw new IllegalStateException("the simulated ledger did not merge to complete results");
                }
                ratios[schedule.ordinal()].add(result.gpuSeconds() / (shape.gpus() * idealEnd));
                ends[schedule.ordinal()].add(result.end() / idealEnd);
            }
        }
        Samples dynamic = ratios[Schedule.DYNAMIC.ordinal()];
        context.checks().samples("7a", "simulated submissions", dynamic, submissions);
        context.table().add("7a", "GPU-hours ÷ the ideal, " + ROUTES + " routes, " + shape.text() + ", "
                + model.describe(), "dynamic: " + ratio(dynamic) + " (n=" + dynamic.size() + "); the run's end ÷ the "
                + "ideal end: " + ratio(ends[Schedule.DYNAMIC.ordinal()]), "static split: "
                + ratio(ratios[Schedule.STATIC.ordinal()]) + "; end: " + ratio(ends[Schedule.STATIC.ordinal()]),
                "≤ " + TARGET + "× at p95",
                dynamic.percentile(95) <= TARGET);
    }

    private void interruptions(Shape shape, int submissions, Random random) {
        var perRoute = new Samples[] { new Samples(), new Samples() };
        var againstBound = new Samples[] { new Samples(), new Samples() };
        int[] drivenAgain = new int[2];
        int[] inFlight = new int[2];
        for (int s = 0; s < submissions; s++) {
            RouteDurationModel.Routes routes = INTERRUPTED.draw(ROUTES, random);
            int index = random.nextInt(shape.pods());
            double moment = random.nextDouble();
            for (Schedule schedule : Schedule.values()) {
                Result base = new ClaimSimulation(shape, schedule, routes, filings).run(Optional.empty());
                double at = ClaimSimulation.POD_START
                        + moment * (base.firstEnds()[index] - ClaimSimulation.POD_START);
                Result hit = new ClaimSimulation(shape, schedule, routes, filings)
                        .run(Optional.of(new Interruption(index, at)));
                double extra = hit.gpuSeconds() - base.gpuSeconds();
                double bound = hit.inFlightSeconds()
                        + (ClaimSimulation.POD_START + ClaimSimulation.RELEASE) * shape.gpusPerPod();
                int k = schedule.ordinal();
                perRoute[k].add(extra / Math.max(1, hit.inFlight()) / RouteDurationModel.MEAN_SECONDS);
                againstBound[k].add(extra / bound);
                drivenAgain[k] += hit.finishedDrivenAgain();
                inFlight[k] += hit.inFlight();
            }
        }
        int d = Schedule.DYNAMIC.ordinal();
        int st = Schedule.STATIC.ordinal();
        context.checks().samples("7b", "interrupted submissions", perRoute[d], submissions);
        context.table().add("7b", "GPU time a spot interruption costs, " + shape.text() + ", " + INTERRUPTED.describe(),
                interruption("dynamic", perRoute[d], againstBound[d], drivenAgain[d], inFlight[d], submissions),
                interruption("static split", perRoute[st], againstBound[st], drivenAgain[st], inFlight[st],
                        submissions),
                "≤ the routes in flight (+ the new pod's start); no finished route driven again",
                againstBound[d].max() <= 1 && drivenAgain[d] == 0);
    }

    private static String interruption(String name, Samples perRoute, Samples againstBound, int drivenAgain,
            int inFlight, int submissions) {
        return name + ": per route in flight p50 " + fmt(perRoute.percentile(50)) + ", p95 " + fmt(perRoute.percentile(95))
                + " mean routes of GPU time; ÷ (the routes in flight driven again + the new pod's start): p50 "
                + fmt(againstBound.percentile(50)) + ", p95 " + fmt(againstBound.percentile(95)) + ", max "
                + fmt(againstBound.max()) + "; " + String.format(Locale.ROOT, "%.2f", (double) inFlight / submissions)
                + " routes in flight on average; finished routes driven again: " + drivenAgain;
    }

    private static String ratio(Samples samples) {
        return "p50 " + fmt(samples.percentile(50)) + "×, p95 " + fmt(samples.percentile(95)) + "×";
    }

    private static String fmt(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    /** Each route's claim files the record of a checkpoint as the evaluator writes it for one route. */
    private static List<ClaimFiling.Accepted> filings() {
        var filings = new ArrayList<ClaimFiling.Accepted>(ROUTES);
        for (int i = 0; i < ROUTES; i++) {
            var key = new EntryKey(Integer.toString(i), 0);
            RouteRecord record = RouteOutcome.drive("ledger", key.claimRecordRouteId(), 0);
            CheckpointFile checkpoint = CheckpointFile.started(List.of("carla_camera"), List.of(1, 1), List.of(record))
                    .withGlobalResults(GlobalStatistics.compute(List.of(record), 1));
            if (!(ClaimFiling.check(checkpoint, key) instanceof ClaimFiling.Accepted accepted)) {
                throw new IllegalStateException("the evaluator stand-in's record of " + key + " is refused");
            }
            filings.add(accepted);
        }
        return filings;
    }
}
