package org.carla.leaderboard.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.GlobalStatistics;
import org.carla.leaderboard.domain.results.MergeResult;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.localstack.standin.RouteOutcome;
import org.carla.leaderboard.podruntime.results.ResultsRefresh;

/**
 * Benchmark 2: one logcopy period's merge and EvalAI files, in-process ({@link ResultsRefresh#refresh}, what the
 * logcopy loop does: read the 4 agents' checkpoints, merge, write the merged checkpoint and EvalAI's 3 files), for 4 ×
 * 5 and 4 × 250 routes. Each period sees agent 1's file changed (it alternates between its last two states), so the
 * period does its whole work, writes included. Warm-up first, then many timed periods.
 *
 * <p>Baseline: the Leaderboard 2.0 tools as the original's monitor runs them every period: {@code merge_statistics.py}
 * then {@code generate_stdout.py}, {@code generate_results.py}, {@code generate_metadata.py}, four Python processes,
 * timed from the first start to the last exit, on the same files. Only with {@code --leaderboard-checkout} and
 * {@code --leaderboard-cloud-checkout} (not part of this repository).
 */
final class MergeBenchmark {

    private static final List<String> SENSORS = List.of("carla_camera", "carla_camera", "carla_lidar", "carla_radar",
            "carla_gnss", "carla_imu", "carla_speedometer");

    private final BenchmarkRun.Context context;

    MergeBenchmark(BenchmarkRun.Context context) {
        this.context = context;
    }

    void run() throws Exception {
        var size = context.size();
        measure(5, size.pick(20, 200, 1000), size.pick(20, 200, 1000), size.pick(1, 3, 10));
        measure(250, size.pick(3, 30, 100), size.pick(5, 50, 200), size.pick(1, 2, 5));
    }

    private void measure(int routesPerAgent, int warmUp, int periods, int baselinePeriods) throws Exception {
        int agents = 4;
        int total = agents * routesPerAgent;
        Path logs = context.work().resolve("merge-" + agents + "x" + routesPerAgent);
        SupervisionBenchmark.deleteRecursively(logs);
        // Agent 1's two states: all its routes done (with global results), and one route short (in progress).
        String[] agentOne = new String[2];
        for (int agent = 1; agent <= agents; agent++) {
            List<RouteRecord> records = new ArrayList<>();
            for (int i = 0; i < routesPerAgent; i++) {
                int id = (agent - 1) * routesPerAgent + i;
                records.add(RouteOutcome.drive("bench", "RouteScenario_" + id + "_rep0", i));
            }
            CheckpointFile done = CheckpointFile.started(SENSORS, List.of(routesPerAgent, routesPerAgent), records)
                    .withGlobalResults(GlobalStatistics.compute(records, routesPerAgent));
            Path file = Files.createDirectories(logs.resolve("agent/agent" + agent)).resolve("agent_results.json");
            ResultsJson.write(file, done);
            if (agent == 1) {
                agentOne[0] = ResultsJson.write(done);
                agentOne[1] = ResultsJson.write(CheckpointFile.started(SENSORS,
                        List.of(routesPerAgent - 1, routesPerAgent), records.subList(0, routesPerAgent - 1)));
            }
        }
        Files.createDirectories(logs.resolve("evalai"));
        Path agentOneFile = logs.resolve("agent/agent1/agent_results.json");
        var refresh = new ResultsRefresh(agents, OptionalInt.of(total));
        Samples timings = new Samples();
        Samples cpu = new Samples();
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int i = 0; i < warmUp + periods; i++) {
            Files.writeString(agentOneFile, agentOne[i % 2]);
            long cpuStart = threads.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            var result = period(refresh, logs, agents);
            long elapsed = System.nanoTime() - start;
            long cpuElapsed = threads.getCurrentThreadCpuTime() - cpuStart;
            if (result.routesTotal() != total) {
                throw new IllegalStateException("merge saw " + result.routesTotal() + " routes, not " + total);
            }
            if (i >= warmUp) {
                timings.add(elapsed / 1e6);
                cpu.add(cpuElapsed / 1e6);
            }
        }
        // The last period leaves agent 1 complete: global results, like the baseline's input below.
        Files.writeString(agentOneFile, agentOne[0]);
        period(refresh, logs, agents);

        Samples baselineCpu = new Samples();
        Samples baseline = baseline(logs, agents, baselinePeriods, baselineCpu);
        String row = total == 1000 ? "2b" : "2a";
        context.checks().samples(row, "timed periods", timings, periods);
        if (context.leaderboard().isPresent() && context.leaderboardCloud().isPresent()) {
            context.checks().samples(row, "periods of the Python tools", baseline, baselinePeriods);
        }
        String label = agents + " × " + routesPerAgent + " routes" + (total == 1000 ? " (1,000)" : "");
        String measured = "wall: mean " + Samples.fmt(timings.mean()) + " ms, " + timings.summary(" ms")
                + "; CPU: mean " + Samples.fmt(cpu.mean()) + " ms, p99 " + Samples.fmt(cpu.percentile(99))
                + " ms; after " + warmUp + " warm-up periods";
        String base = baseline.size() == 0 ? "not run (no Leaderboard checkout given)"
                : "wall: mean " + Samples.fmt(baseline.mean()) + " ms, " + baseline.summary(" ms") + "; CPU: mean "
                        + Samples.fmt(baselineCpu.mean()) + " ms. Ratio (mean): wall "
                        + Samples.fmt(baseline.mean() / timings.mean()) + "×, CPU "
                        + Samples.fmt(baselineCpu.mean() / cpu.mean()) + "×";
        Boolean met;
        String target;
        if (total >= 1000) {
            target = "50× cheaper; < 50 ms for 1,000 routes";
            met = timings.percentile(99) < 50 && (baseline.size() == 0 || baseline.mean() / timings.mean() >= 50);
        } else {
            target = "50× cheaper than the baseline";
            met = baseline.size() == 0 ? null : baseline.mean() / timings.mean() >= 50;
        }
        context.table().add(row, "one logcopy period's merge + EvalAI files, " + label,
                measured, base, target, met);
    }

    /**
     * What logcopy does each period: read the agents' checkpoints, merge, write the files whose text changed (logcopy
     * reads and writes through its guarded volume access, which adds a few system calls per file).
     */
    private static MergeResult period(ResultsRefresh refresh, Path logs, int agents) throws IOException {
        var inputs = new ArrayList<ResultsRefresh.AgentFile>();
        for (int agent = 1; agent <= agents; agent++) {
            inputs.add(ResultsRefresh.AgentFile.of(Files.readString(logs.resolve("agent/agent" + agent)
                    .resolve("agent_results.json"))));
        }
        ResultsRefresh.Refreshed refreshed = refresh.refresh(inputs);
        for (String changed : refreshed.changed()) {
            ResultsJson.writeText(logs.resolve(changed), refreshed.files().get(changed));
        }
        return refreshed.result();
    }

    /** The four steps in a row under a small Python timer: wall time and the children's CPU time (rusage). */
    private static final String TIMER = String.join("\n",
            "import json, resource, subprocess, sys, time",
            "steps = json.loads(sys.argv[1])",
            "start = time.perf_counter()",
            "for step in steps:",
            "    subprocess.run(step, check=True, stdout=subprocess.DEVNULL)",
            "wall = time.perf_counter() - start",
            "usage = resource.getrusage(resource.RUSAGE_CHILDREN)",
            "print(wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000)");

    private Samples baseline(Path logs, int agents, int periods, Samples cpu) throws Exception {
        var samples = new Samples();
        if (context.leaderboard().isEmpty() || context.leaderboardCloud().isEmpty()) {
            return samples;
        }
        Path leaderboard = context.leaderboard().get();
        Path evalai = context.leaderboardCloud().get().resolve("leaderboard_2.0/docker/monitor/evalai");
        Path out = Files.createDirectories(logs.resolve("python"));
        Path merged = out.resolve("agent_results.json");
        var merge = new ArrayList<>(List.of("python3", leaderboard.resolve("scripts/merge_statistics.py").toString(),
                "--file-paths"));
        for (int agent = 1; agent <= agents; agent++) {
            merge.add(logs.resolve("agent/agent" + agent + "/agent_results.json").toString());
        }
        merge.add("--endpoint");
        merge.add(merged.toString());
        List<List<String>> steps = List.of(merge,
                generator(evalai, "generate_stdout.py", merged, out.resolve("stdout.txt")),
                generator(evalai, "generate_results.py", merged, out.resolve("results.json")),
                generator(evalai, "generate_metadata.py", merged, out.resolve("metadata.json")));
        Map<String, String> env = new HashMap<>();
        String extra = System.getenv().getOrDefault("PYTHONPATH", "");
        env.put("PYTHONPATH", leaderboard + (extra.isEmpty() ? "" : ":" + extra));
        String json = ResultsJson.mapper().writeValueAsString(steps);
        for (int period = 0; period < periods; period++) {
            Files.deleteIfExists(merged); // the original's endpoint is rewritten each period
            Path timings = out.resolve("timer-" + period + ".txt");
            try (Child child = Child.start(List.of("python3", "-c", TIMER, json), env, out, timings)) {
                if (!child.waitFor(Duration.ofMinutes(2)) || child.exitCode() != 0) {
                    throw new IllegalStateException("the Python tools failed; see " + timings);
                }
            }
            String[] figures = Files.readString(timings).trim().split("\\s+");
            samples.add(Double.parseDouble(figures[figures.length - 2]));
            cpu.add(Double.parseDouble(figures[figures.length - 1]));
        }
        checkSameResults(logs, out);
        return samples;
    }

    /** The baseline must have computed what ours did, or the comparison means nothing. */
    private static void checkSameResults(Path logs, Path python) throws IOException {
        String ours = Files.readString(logs.resolve("evalai/results.json")).replaceAll("\\s", "");
        String theirs = Files.readString(python.resolve("results.json")).replaceAll("\\s", "");
        if (!ours.equals(theirs)) {
            System.out.println("  NOTE: results.json differs from the Python tools' (ours " + ours.length()
                    + " chars, theirs " + theirs.length() + "): compare " + logs.resolve("evalai/results.json")
                    + " and " + python.resolve("results.json"));
        } else {
            System.out.println("  results.json identical to the Python tools' output");
        }
    }

    private static List<String> generator(Path dir, String script, Path merged, Path endpoint) {
        return List.of("python3", dir.resolve(script).toString(), "--file-path", merged.toString(), "--endpoint",
                endpoint.toString());
    }
}
