package org.carla.leaderboard.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.localstack.process.FreePort;
import org.carla.leaderboard.localstack.standin.EvaluatorScript;
import org.carla.leaderboard.localstack.standin.StandInRoutes;

/**
 * Benchmark 1: supervision overhead per worker pair. pod-runtime's {@code simulator} and {@code agent} (the packaged
 * jar, as real processes) supervise the CARLA and evaluator stand-ins; the baseline scripts (the original's loops and
 * timings) supervise the same stand-ins in the same run, a few pairs in parallel because each takes minutes.
 *
 * <p>Clocks (all wall clock, epoch µs): the stand-ins run under {@code benchmarks/bin/stamp}, which writes when each
 * started and ended; CARLA is ready at the first TCP connect the harness's probe (every 2 ms) gets; the harness sees
 * each container process exit ({@code Process.onExit}). "CARLA died": the harness SIGKILLs the CARLA stand-in's JVM
 * 2 s after the evaluator started (the time of death is the wrapper's end stamp).
 */
final class SupervisionBenchmark {

    private static final String STANDIN = "org.carla.leaderboard.localstack.standin.";
    private static final List<String> STANDIN_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m");

    private final BenchmarkRun.Context context;
    private final Samples podReady = new Samples();
    private final Samples podDone = new Samples();
    private final Samples podCrash = new Samples();
    private final Samples baseReady = new Samples();
    private final Samples baseDone = new Samples();
    private final Samples baseCrash = new Samples();
    private final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());

    SupervisionBenchmark(BenchmarkRun.Context context) {
        this.context = context;
    }

    /** One pair's timings (ms): (a), and from the end event to each status file's mtime and to both exits. */
    record PairTimes(double readyToEvaluatorMs, double endToExitedMs, double agentFileMs, double simulatorFileMs,
            double childStopMs) {
    }

    /** Where the time of (b) or (c) goes: the agent's and the simulator's status files (mtimes). */
    private final Map<String, Samples[]> files = new java.util.concurrent.ConcurrentHashMap<>();

    private String breakdown(String key) {
        Samples[] s = files.get(key);
        if (s == null) {
            return "";
        }
        return "; status file written after p50 " + Samples.fmt(s[0].percentile(50)) + " ms (agent), "
                + Samples.fmt(s[1].percentile(50)) + " ms (simulator)"
                + (s[2].size() == 0 ? "" : key.endsWith("true")
                        ? "; the evaluator exited by itself (CARLA's connection dropped) p50 "
                                + Samples.fmt(s[2].percentile(50)) + " ms after CARLA died"
                        : "; CARLA took p50 " + Samples.fmt(s[2].percentile(50))
                                + " ms to exit after agent-1.done (its stop: the simulator's SIGTERM, the baseline's kill -9)");
    }

    void run() throws Exception {
        int iterations = context.size().pick(1, 3, 10);
        int baselinePairs = context.size().pick(1, 1, 2);
        ExecutorService background = Executors.newCachedThreadPool();
        var baseline = new ArrayList<Future<?>>();
        for (int i = 0; i < baselinePairs; i++) {
            int n = i;
            baseline.add(background.submit(() -> record(true, false, n, baseReady, baseDone)));
            baseline.add(background.submit(() -> record(true, true, n, baseReady, baseCrash)));
        }
        for (int i = 0; i < iterations; i++) {
            record(false, false, i, podReady, podDone);
            record(false, true, i, podReady, podCrash);
        }
        for (Future<?> future : baseline) {
            future.get();
        }
        background.shutdown();
        String note = failures.isEmpty() ? "" : " — failed runs: " + String.join("; ", failures);
        var checks = context.checks();
        checks.samples("1a", "pod-runtime pairs that started their evaluator", podReady, 2 * iterations);
        checks.samples("1a", "baseline pairs that started their evaluator", baseReady, 2 * baselinePairs);
        checks.samples("1b", "pod-runtime pairs that ended done", podDone, iterations);
        checks.samples("1b", "baseline pairs that ended done", baseDone, baselinePairs);
        checks.samples("1c", "pod-runtime pairs that ended crashed", podCrash, iterations);
        checks.samples("1c", "baseline pairs that ended crashed", baseCrash, baselinePairs);
        failures.forEach(failure -> checks.fail("1", failure));
        var table = context.table();
        table.add("1a", "CARLA ready → evaluator started (per pair)", podReady.summary(" ms"),
                baseReady.summary(" ms"), "≤ 500 ms", podReady.size() > 0 && podReady.max() <= 500);
        table.add("1b", "evaluator finished → both done files, CARLA stopped (pod-runtime's containers then hold, the"
                + " baseline's exit)",
                podDone.summary(" ms") + breakdown("pfalse"), baseDone.summary(" ms") + breakdown("bfalse"), "p99 < 250 ms", podDone.size() > 0 && podDone.percentile(99) < 250);
        table.add("1c", "CARLA died → both containers exited, crash files", podCrash.summary(" ms") + breakdown("ptrue") + note,
                baseCrash.summary(" ms") + breakdown("btrue"), "p99 < 250 ms", podCrash.size() > 0 && podCrash.percentile(99) < 250);
    }

    private void record(boolean baseline, boolean crash, int index, Samples ready, Samples end) {
        String name = (baseline ? "baseline" : "pod-runtime") + "-" + (crash ? "crash" : "done") + "-" + index;
        try {
            PairTimes times = runPair(baseline, crash, context.work().resolve("supervision").resolve(name));
            ready.add(times.readyToEvaluatorMs());
            end.add(times.endToExitedMs());
            Samples[] split = files.computeIfAbsent((baseline ? "b" : "p") + crash,
                    k -> new Samples[] {new Samples(), new Samples(), new Samples()});
            split[0].add(times.agentFileMs());
            split[1].add(times.simulatorFileMs());
            if (!Double.isNaN(times.childStopMs())) {
                split[2].add(times.childStopMs());
            }
            System.out.printf("  %s: ready→evaluator %.1f ms, end→exited %.1f ms (load %s)%n", name,
                    times.readyToEvaluatorMs(), times.endToExitedMs(), Machine.loadText());
        } catch (Exception e) {
            failures.add(name + ": " + e.getMessage());
            System.out.println("  " + name + " FAILED: " + e);
        }
    }

    private PairTimes runPair(boolean baseline, boolean crash, Path dir) throws Exception {
        try {
            return runPairIn(baseline, crash, dir);
        } finally {
            stopLeftovers(dir);
        }
    }

    /**
     * Safety net: a process of this pair that left the harness's process tree (an orphan, e.g. a program whose
     * wrapper was killed) is found by its working directory, inside the pair's folder, and stopped.
     */
    private static void stopLeftovers(Path dir) {
        Path root = dir.toAbsolutePath().normalize();
        ProcessHandle.allProcesses().filter(p -> {
            try {
                return Files.readSymbolicLink(Path.of("/proc", Long.toString(p.pid()), "cwd")).startsWith(root);
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }).forEach(p -> {
            System.out.println("  stopping a leftover process " + p.pid() + " of " + root.getFileName());
            p.destroyForcibly();
        });
    }

    private PairTimes runPairIn(boolean baseline, boolean crash, Path dir) throws Exception {
        deleteRecursively(dir);
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Path status = Files.createDirectories(logs.resolve("containers-status"));
        Files.createDirectories(logs.resolve("agent/agent1"));
        Path checkpoint = logs.resolve("agent/agent1/agent_results.json");
        int port = FreePort.forALaterBind();
        String stamp = context.repo().resolve("benchmarks/bin/stamp").toString();
        String carla = String.join(" ", concat(List.of(stamp, dir.resolve("carla").toString(), context.java()),
                STANDIN_JVM, List.of("-cp", context.classPath(), STANDIN + "CarlaServerStandIn",
                        "-carla-rpc-port=" + (baseline ? Integer.toString(port) : "{port}"), "-RenderOffScreen")));
        String evaluator = String.join(" ", concat(List.of(stamp, dir.resolve("evaluator").toString(),
                context.java()), STANDIN_JVM, List.of("-cp", context.classPath(), STANDIN + "EvaluatorStandIn",
                        EvaluatorScript.write(dir, LeaderboardVersion.V2_0).toString())));
        // One route: the evaluator drives the whole file.
        String routes = StandInRoutes.write(dir.resolve("routes.xml"), LeaderboardVersion.V2_0, StandInRoutes.ids(0, 1))
                .toString();
        Files.writeString(dir.resolve("agent.py"), "# the evaluator stand-in does not load the agent\n");

        Map<String, String> env = new HashMap<>();
        env.put("WORKER_ID", "1");
        env.put("WORKER_PAIRS", "1");
        env.put("SUBMISSION_ID", "bench");
        env.put("CARLA_PORT", Integer.toString(port));
        env.put("LOGS_DIR", logs.toString());
        env.put("STATUS_DIR", status.toString());
        env.put("PARTNER_WAIT", "900");
        env.put("STOP_GRACE", "3");
        env.put("CARLA_STANDIN_STARTUP_SECONDS", "1");
        env.put("EVALUATOR_STANDIN_ROUTE_SECONDS", crash ? "120" : "1");
        env.put("EVALUATOR_STANDIN_SEED", "1");

        Child agent;
        Child simulator;
        if (baseline) {
            Map<String, String> agentEnv = new HashMap<>(env);
            agentEnv.put("EVALUATOR_COMMAND", evaluator + " --port=" + port + " --traffic-manager-port=" + (port + 10)
                    + " --agent=" + dir.resolve("agent.py") + " --track=SENSORS --routes=" + routes
                    + " --routes-subset=0 --repetitions=1 --checkpoint=" + checkpoint);
            agentEnv.put("CHECKPOINT", checkpoint.toString());
            agentEnv.put("LOG_FILE", logs.resolve("agent/agent1/leaderboard.log").toString());
            Map<String, String> simulatorEnv = new HashMap<>(env);
            simulatorEnv.put("CARLA_SERVER_COMMAND", carla);
            String scripts = context.repo().resolve("benchmarks/baseline").toString();
            // The original's containers start together.
            agent = Child.start(List.of("bash", scripts + "/seeds-agent.sh"), agentEnv, dir, dir.resolve("agent.log"));
            simulator = Child.start(List.of("bash", scripts + "/seeds-simulator.sh"), simulatorEnv, dir,
                    dir.resolve("simulator.log"));
        } else {
            Map<String, String> agentEnv = new HashMap<>(env);
            agentEnv.put("EVALUATOR_COMMAND", evaluator);
            agentEnv.put("TEAM_AGENT", dir.resolve("agent.py").toString());
            agentEnv.put("LEADERBOARD_VERSION", LeaderboardVersion.V2_0.text());
            agentEnv.put("ROUTES", routes);
            agentEnv.put("LEADERBOARD_ROOT", dir.toString());
            agentEnv.put("MAX_IDLE", "800");
            Map<String, String> simulatorEnv = new HashMap<>(env);
            simulatorEnv.put("CARLA_SERVER_COMMAND", carla);
            simulatorEnv.put("CARLA_ROOT", dir.toString());
            List<String> podRuntime = List.of(context.java(), "-jar", context.podRuntimeJar().toString());
            agent = Child.start(concat(podRuntime, List.of("agent")), agentEnv, dir, dir.resolve("agent.log"));
            // CARLA starts once the agent is waiting for it, so (a) is the supervision, not the agent JVM's start-up.
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!agent.logContains("for CARLA on port") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            simulator = Child.start(concat(podRuntime, List.of("simulator")), simulatorEnv, dir,
                    dir.resolve("simulator.log"));
        }
        try (agent; simulator) {
            long readyMicros = awaitListening(port, Duration.ofSeconds(180));
            Path evaluatorStart = dir.resolve("evaluator.start");
            long evaluatorStarted = awaitStamp(evaluatorStart, Duration.ofSeconds(baseline ? 240 : 120));
            long killedAt = 0;
            if (crash) {
                Thread.sleep(2000);
                killedAt = Clock.micros();
                killCarla(simulator);
            }
            Duration bound = Duration.ofSeconds(baseline ? 400 : 120);
            long exited;
            if (!baseline && !crash) {
                // pod-runtime's pair containers are native sidecars: once done they hold until the pod ends. The
                // pair's end is both done files written and CARLA stopped; the pod's end (SIGTERM) then exits both 0.
                exited = awaitHeld(status, dir.resolve("carla.end"), bound);
                agent.process().destroy();
                simulator.process().destroy();
                if (!agent.waitFor(Duration.ofSeconds(30)) || !simulator.waitFor(Duration.ofSeconds(30))) {
                    throw new IllegalStateException("the held pair did not exit within 30 s of SIGTERM");
                }
            } else {
                if (!agent.waitFor(bound) || !simulator.waitFor(bound)) {
                    throw new IllegalStateException("the pair did not end within " + bound.toSeconds() + " s");
                }
                exited = Math.max(agent.exitMicros(), simulator.exitMicros());
            }
            // CARLA's end stamp is its wrapper's, which the baseline's kill -9 of CARLA's pid may cut: then the kill's time.
            long endedMicros = crash ? stamp(dir.resolve("carla.end")).orElse(killedAt)
                    : readStamp(dir.resolve("evaluator.end"));
            String expectAgent = crash ? "agent-1.crash0" : "agent-1.done";
            String expectSimulator = crash ? "simulator-1.crash0" : "simulator-1.done";
            int expectedCode = crash ? 1 : 0;
            int agentCode = expectedCode;
            if (baseline && crash && agent.exitCode() == 0 && Files.exists(status.resolve("agent-1.done"))) {
                // The original's agent calls a route done once the checkpoint has a global record, and the evaluator
                // writes one for a crashed route too: when its write beats the script's check (5 s steps, then
                // sleep 5), the original reports done beside the simulator's crash. Its race, timed all the same.
                expectAgent = "agent-1.done";
                agentCode = 0;
            }
            if (!Files.exists(status.resolve(expectAgent)) || !Files.exists(status.resolve(expectSimulator))
                    || agent.exitCode() != agentCode || simulator.exitCode() != expectedCode) {
                throw new IllegalStateException("unexpected end: agent exit " + agent.exitCode() + ", simulator exit "
                        + simulator.exitCode() + ", status files " + list(status) + " (see " + dir + ")");
            }
            // Done: CARLA's exit after agent-1.done (it is stopped). Crash: the evaluator's exit after CARLA's death.
            Path stoppedEnd = dir.resolve(crash ? "evaluator.end" : "carla.end");
            long from = crash ? endedMicros : mtimeMicros(status.resolve(expectAgent));
            double childStop = stamp(stoppedEnd).map(end -> (end - from) / 1000.0).orElse(Double.NaN);
            return new PairTimes((evaluatorStarted - readyMicros) / 1000.0, (exited - endedMicros) / 1000.0,
                    (mtimeMicros(status.resolve(expectAgent)) - endedMicros) / 1000.0,
                    (mtimeMicros(status.resolve(expectSimulator)) - endedMicros) / 1000.0, childStop);
        }
    }

    /** When both done files are written and CARLA has stopped (its end stamp), whichever came last. */
    private static long awaitHeld(Path status, Path carlaEnd, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Path agentDone = status.resolve("agent-1.done");
        Path simulatorDone = status.resolve("simulator-1.done");
        while (System.nanoTime() < deadline) {
            Optional<Long> stopped = stamp(carlaEnd);
            if (stopped.isPresent() && Files.exists(agentDone) && Files.exists(simulatorDone)) {
                return Math.max(stopped.get(), Math.max(mtimeMicros(agentDone), mtimeMicros(simulatorDone)));
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("the pair did not end within " + timeout.toSeconds() + " s");
    }

    /** SIGKILL to the CARLA stand-in's JVM (a crash: no shutdown hook, clients see the connection drop). */
    private static void killCarla(Child simulator) throws IOException {
        // ProcessHandle.Info has no arguments for a command line this long (the class path): read /proc.
        var carla = simulator.process().descendants().filter(p -> {
            try {
                String[] argv = Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline")).split("\0");
                return argv[0].endsWith("java") && List.of(argv).contains(STANDIN + "CarlaServerStandIn");
            } catch (IOException e) {
                return false;
            }
        }).toList();
        if (carla.size() != 1) {
            throw new IllegalStateException("expected one CARLA stand-in process, found " + carla.size());
        }
        carla.get(0).destroyForcibly();
    }

    private static long mtimeMicros(Path file) throws IOException {
        return Files.getLastModifiedTime(file).to(java.util.concurrent.TimeUnit.MICROSECONDS);
    }

    private static long awaitListening(int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return Clock.micros();
            } catch (IOException e) {
                Thread.sleep(2);
            }
        }
        throw new IllegalStateException("CARLA stand-in not listening on " + port + " within " + timeout);
    }

    private static long awaitStamp(Path file, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(file) && Files.size(file) > 0) {
                return readStamp(file);
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("no " + file.getFileName() + " within " + timeout.toSeconds() + " s");
    }

    private static long readStamp(Path file) throws IOException {
        return Long.parseLong(Files.readString(file).trim());
    }

    /**
     * A stamp its wrapper wrote; empty when there is none, or when a SIGKILL cut the wrapper between opening the file
     * and writing it (an empty file): the baseline stops CARLA with kill -9 of its pid, which is the wrapper's.
     */
    private static Optional<Long> stamp(Path file) throws IOException {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        String text = Files.readString(file).trim();
        return text.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(text));
    }

    private static String list(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList().toString();
        }
    }

    @SafeVarargs
    static List<String> concat(List<String>... parts) {
        var all = new ArrayList<String>();
        for (List<String> part : parts) {
            all.addAll(part);
        }
        return all;
    }

    static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
