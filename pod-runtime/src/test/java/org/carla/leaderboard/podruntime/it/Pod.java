package org.carla.leaderboard.podruntime.it;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.carla.leaderboard.localstack.process.FreePort;
import org.carla.leaderboard.localstack.standin.EvaluatorScript;
import org.carla.leaderboard.localstack.standin.StandInRoutes;

/**
 * One pod of a test: a logs volume in a temporary folder and the pod-runtime roles started as real processes from the
 * packaged executable, with the CARLA and evaluator stand-ins as their children. It plays the kubelet of the Job's
 * layout: the pair containers are native sidecars ({@link Sidecar}: started again after any exit, 0 included, stopped
 * by SIGTERM, last first, when the pod ends), logcopy the one regular container whose exit ends the pod
 * ({@link Running}). Every process it starts is killed at close.
 */
final class Pod implements AutoCloseable {

    static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath();
    /** The native executable, when the build made one: {@code -Pnative verify} (failsafe passes the property). */
    static final Optional<Path> NATIVE = Optional.ofNullable(System.getProperty("native.image.path")).map(Path::of)
            .map(Path::toAbsolutePath).filter(Files::isExecutable);
    static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    /** Quick JVM start-up for the many short-lived processes of these tests. */
    static final List<String> JVM_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
            "-Xmx128m");

    final Path root;
    final Path logs;
    final Path status;
    final int carlaPort = FreePort.forALaterBind();
    private final List<Process> started = new ArrayList<>();
    private final List<Sidecar> sidecars = new CopyOnWriteArrayList<>();
    /** The kubelet's back-off before it starts a sidecar again: none, unless a test holds the restarts. */
    private final Semaphore restarts = new Semaphore(FREE_RESTARTS);
    private static final int FREE_RESTARTS = 1_000_000;
    private int runs;
    private static final int FIRST_ROUTE_ID = 10;
    private List<String> routeIds = List.of();

    /** A worker pair's two containers, started together, simulator first (they are sidecars in that order). */
    record Pair(Sidecar simulator, Sidecar agent) {

        /** Both exit codes of their {@code start}-th start (from 0), the agent's first, once both exited within. */
        List<Integer> exits(int start, Duration within) throws InterruptedException {
            return List.of(agent.exit(start, within), simulator.exit(start, within));
        }

        /** Waits until both containers' {@code start}-th start holds its exit 0 until the pod ends. */
        void awaitHolding(int start, Duration within) {
            agent.awaitHolding(start, within);
            simulator.awaitHolding(start, within);
        }

        /**
         * The pod ends: SIGTERM to the agent, then to the simulator (the kubelet stops sidecars last first); both exit
         * codes, the agent's first.
         */
        List<Integer> end(Duration within) throws InterruptedException {
            return List.of(agent.end(within), simulator.end(within));
        }
    }

    /**
     * A pair container as the kubelet runs a native sidecar (an init container with {@code restartPolicy: Always}): it
     * is started again after any exit, 0 included, as long as the pod lives (at once, unless the test holds the
     * restarts: {@link #holdRestarts}), and stopped by SIGTERM only when the pod ends ({@link #end}).
     */
    final class Sidecar {

        /** What a pair role logs when it holds an exit 0 until the pod ends (PairSupervisor's decision). */
        static final String HOLDING = "holding: exit 0 once the pod ends (SIGTERM)";

        private final String role;
        private final Map<String, String> env;
        private final List<Launched> starts = new CopyOnWriteArrayList<>();
        private boolean ending;

        private Sidecar(String role, Map<String, String> env) throws IOException {
            this.role = role;
            this.env = env;
            starts.add(launch(role, env));
            Thread kubelet = new Thread(this::restartAfterEachExit, role + "-kubelet");
            kubelet.setDaemon(true);
            kubelet.start();
        }

        private void restartAfterEachExit() {
            try {
                while (true) {
                    starts.get(starts.size() - 1).process().waitFor();
                    while (!restarts.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        if (ended()) {
                            return;
                        }
                    }
                    synchronized (this) {
                        if (ending) {
                            return;
                        }
                        starts.add(launch(role, env));
                    }
                }
            } catch (IOException | InterruptedException e) {
                // the pod is closed
            }
        }

        private synchronized boolean ended() {
            return ending;
        }

        /** The process of its {@code start}-th start (from 0), once the kubelet started it within {@code within}. */
        Process process(int start, Duration within) {
            org.awaitility.Awaitility.await(role + " start " + start).atMost(within)
                    .pollInterval(Duration.ofMillis(50)).until(() -> starts.size() > start);
            return starts.get(start).process();
        }

        /** The process running now (or last). */
        Process current() {
            return starts.get(starts.size() - 1).process();
        }

        /** How many times it was started. */
        int starts() {
            return starts.size();
        }

        /** The exit code of its {@code start}-th start, once it exited within {@code within}. */
        int exit(int start, Duration within) throws InterruptedException {
            return Pod.exit(process(start, within), within);
        }

        /** The console of its {@code start}-th start. */
        String console(int start) throws IOException {
            return Files.readString(starts.get(start).console(), StandardCharsets.UTF_8);
        }

        /** The pid its {@code start}-th start logged for its child ("started the evaluator, pid 123"). */
        long childPid(int start, String what) throws IOException {
            return Pod.childPid(console(start), what);
        }

        void awaitHolding(int start, Duration within) {
            process(start, within);
            org.awaitility.Awaitility.await(role + " start " + start + " holding").atMost(within)
                    .pollInterval(Duration.ofMillis(50)).until(() -> console(start).contains(HOLDING));
        }

        /** The pod ends: no restart any more, SIGTERM to the running process; its exit code (the last, if none runs). */
        int end(Duration within) throws InterruptedException {
            Process last;
            synchronized (this) {
                ending = true;
                last = current();
            }
            last.destroy();
            return Pod.exit(last, within);
        }

        /** The node is lost: no restart any more, SIGKILL to the container and everything it started. */
        void lose() throws InterruptedException {
            synchronized (this) {
                ending = true;
            }
            kill(current());
        }
    }

    /** The pod's containers after init: the pairs' sidecars, then logcopy, the one regular container. */
    final class Running {
        final List<Pair> pairs;
        final Process logcopy;

        private Running(List<Pair> pairs, Process logcopy) {
            this.pairs = pairs;
            this.logcopy = logcopy;
        }

        /**
         * logcopy's exit ends the pod (restartPolicy Never: it is not started again): once it exited within
         * {@code within}, SIGTERM to the sidecars, last first. logcopy's exit code and the sidecars' at the end.
         */
        Ended awaitEnd(Duration within) throws InterruptedException {
            int exit = Pod.exit(logcopy, within);
            return new Ended(exit, endSidecars());
        }

        /** The kubelet stops the pod (a deletion, a drain): SIGTERM to logcopy, then to the sidecars, last first. */
        Ended stop(Duration within) throws InterruptedException {
            logcopy.destroy();
            return awaitEnd(within);
        }

        /** The node is lost: every process at once, SIGKILL, and nothing is started again. */
        void lose() throws InterruptedException {
            for (Pair pair : pairs) {
                pair.agent().lose();
                pair.simulator().lose();
            }
            kill(logcopy);
        }

        private List<Integer> endSidecars() throws InterruptedException {
            List<Integer> exits = new ArrayList<>();
            for (int pair = pairs.size() - 1; pair >= 0; pair--) {
                exits.addAll(pairs.get(pair).end(Duration.ofSeconds(30)));
            }
            return exits;
        }
    }

    /** How a pod ended: logcopy's exit code, and its sidecars' exit codes once SIGTERM ended them. */
    record Ended(int logcopy, List<Integer> sidecars) {
    }

    /** A process this pod started and the file its console goes to. */
    private record Launched(Process process, Path console) {
    }

    Pod(Path root) throws IOException {
        this.root = root;
        this.logs = Files.createDirectories(root.resolve("logs"));
        this.status = Files.createDirectories(logs.resolve("containers-status"));
        Files.createDirectories(logs.resolve("agent").resolve("agent1"));
        Files.createDirectories(logs.resolve("simulator"));
    }

    /**
     * The environment the Job gives pair 1 of a Leaderboard 2.0 track of three routes, with short waits for tests and
     * the stand-ins as CARLA and evaluator; {@code more} adds or replaces variables (name, value, name, value...).
     */
    Map<String, String> pairEnv(String... more) throws IOException {
        return pairEnv(LeaderboardVersion.V2_0, 3, more);
    }

    /**
     * The same for a track of {@code version} whose routes file (in the pod's Leaderboard folder) holds {@code routes}
     * routes, numbered from {@link #routeId routeId(0)} so that their ids are never their positions.
     */
    Map<String, String> pairEnv(LeaderboardVersion version, int routes, String... more) throws IOException {
        Path leaderboard = root.resolve("leaderboard");
        routeIds = StandInRoutes.ids(FIRST_ROUTE_ID, routes);
        Path routesFile = StandInRoutes.write(leaderboard.resolve("data/routes_testing.xml"), version, routeIds);
        Map<String, String> env = new HashMap<>();
        env.put("SUBMISSION_ID", "it-" + root.getFileName());
        env.put("WORKER_PAIRS", "1");
        env.put("WORKER_ID", "1");
        env.put("CARLA_PORT", Integer.toString(carlaPort));
        env.put("LOGS_DIR", logs.toString());
        env.put("PARTNER_WAIT", "PT20S");
        env.put("MAX_IDLE", "30");
        env.put("STOP_GRACE", "2");
        env.put("CARLA_ROOT", root.toString());
        env.put("CARLA_SERVER_COMMAND", standIn("CarlaServerStandIn") + " -{renderer} -carla-rpc-port={port} -RenderOffScreen");
        env.put("LEADERBOARD_ROOT", leaderboard.toString());
        EvaluatorScript.write(leaderboard, version);
        env.put("EVALUATOR_COMMAND", standIn("EvaluatorStandIn") + " ${LEADERBOARD_ROOT}/" + EvaluatorScript.PATH);
        env.put("TEAM_AGENT", "/workspace/team_code/agent.py");
        env.put("TEAM_CONFIG", "/workspace/team_code/config.yaml");
        env.put("CHALLENGE_TRACK_CODENAME", "SENSORS");
        env.put("LEADERBOARD_VERSION", version.text());
        env.put("ROUTES", routesFile.toString());
        if (version.takesScenarios()) {
            env.put("SCENARIOS", Files.writeString(leaderboard.resolve("data/scenarios.json"), "{}").toString());
        }
        env.put("REPETITIONS", "1");
        env.put("EXPECTED_ROUTES", Integer.toString(routes));
        env.put("EVALUATOR_STANDIN_ROUTE_SECONDS", "0.5");
        for (int i = 0; i < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    /** The pod's ServiceAccount: its containers sign as the IAM role it assumes, as in a cluster (IRSA). */
    static final ServiceAccount WORKER = new ServiceAccount("submissions", "submission-worker");

    /**
     * The stack's S3 and SQS settings, signing as {@link #WORKER}'s role, as the Job runner gives them to a pod's
     * containers (environment variables).
     */
    static Map<String, String> awsEnvironment(RunningStack stack) {
        Map<String, String> env = new HashMap<>();
        stack.quarkusConfig(WORKER).forEach((key, value) -> {
            if (key.startsWith("quarkus.s3.") || key.startsWith("quarkus.sqs.") || key.startsWith("quarkus.dynamodb.")) {
                env.put(key.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_"), value);
            }
        });
        return env;
    }

    /** The id of the route at {@code position} of the routes file {@link #pairEnv} writes. */
    static String routeId(int position) {
        return Integer.toString(FIRST_ROUTE_ID + position);
    }

    /** The ids of the routes file the last {@link #pairEnv} wrote, in file order. */
    List<String> routeIds() {
        return routeIds;
    }

    /** Starts {@code pod-runtime simulator} and {@code pod-runtime agent} as the pair's sidecars. */
    Pair startPair(Map<String, String> env) throws IOException {
        Sidecar simulator = new Sidecar("simulator", env);
        sidecars.add(simulator);
        Sidecar agent = new Sidecar("agent", env);
        sidecars.add(agent);
        return new Pair(simulator, agent);
    }

    /**
     * The pod's containers once init is done: each pair's sidecars (one environment per pair), then
     * {@code pod-runtime logcopy} with {@code logcopyEnv}.
     */
    Running startContainers(Map<String, String> logcopyEnv, List<Map<String, String>> pairEnvs) throws IOException {
        List<Pair> pairs = new ArrayList<>();
        for (Map<String, String> env : pairEnvs) {
            pairs.add(startPair(env));
        }
        return new Running(pairs, start("logcopy", logcopyEnv));
    }

    /** From now on a sidecar that exits is started again only when the test allows it ({@link #allowRestarts}). */
    void holdRestarts() {
        restarts.drainPermits();
    }

    /** Lets {@code count} more sidecar restarts happen. */
    void allowRestarts(int count) {
        restarts.release(count);
    }

    /** The command line of {@code pod-runtime ARGS...}: the native executable when there is one, else the jar. */
    static List<String> podRuntime(String... args) {
        List<String> command = new ArrayList<>();
        if (NATIVE.isPresent()) {
            command.add(NATIVE.get().toString());
        } else {
            command.add(JAVA);
            command.addAll(JVM_FLAGS);
            command.add("-jar");
            command.add(JAR.toString());
        }
        command.addAll(List.of(args));
        return command;
    }

    /**
     * Starts {@code pod-runtime <role>} once, as a container the test watches itself; its console goes to
     * {@code <role>-<n>.out} in the pod's folder.
     */
    Process start(String role, Map<String, String> env) throws IOException {
        return launch(role, env).process();
    }

    private synchronized Launched launch(String role, Map<String, String> env) throws IOException {
        Path console = root.resolve(role + "-" + (++runs) + ".out");
        ProcessBuilder builder = new ProcessBuilder(podRuntime(role)).redirectErrorStream(true)
                .redirectOutput(console.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        started.add(process);
        return new Launched(process, console);
    }

    /**
     * SIGKILL to a container: the role and everything it started die at once, as when the kubelet kills a container
     * (OOM, eviction, the end of the grace) and its PID namespace goes; no status file is written.
     */
    static void kill(Process container) throws InterruptedException {
        List<ProcessHandle> everything = new ArrayList<>(container.descendants().toList());
        container.destroyForcibly();
        everything.forEach(ProcessHandle::destroyForcibly);
        container.waitFor();
        for (ProcessHandle process : everything) {
            process.onExit().join();
        }
    }

    static int exit(Process process, Duration within) throws InterruptedException {
        if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("pid " + process.pid() + " still running after " + within);
        }
        return process.exitValue();
    }

    Set<String> statusFiles() throws IOException {
        try (Stream<Path> files = Files.list(status)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith("."))
                    .collect(Collectors.toSet());
        }
    }

    Path checkpoint() {
        return logs.resolve("agent").resolve("agent1").resolve("agent_results.json");
    }

    String leaderboardLog() throws IOException {
        return Files.readString(logs.resolve("agent").resolve("agent1").resolve("leaderboard.log"), StandardCharsets.UTF_8);
    }

    /** The console of the n-th process this pod started (1-based). */
    String console(int run) throws IOException {
        try (Stream<Path> files = Files.list(root)) {
            Path file = files.filter(p -> p.getFileName().toString().endsWith("-" + run + ".out")).findFirst()
                    .orElseThrow();
            return Files.readString(file, StandardCharsets.UTF_8);
        }
    }

    /** The pid a role logged for its child ("started the evaluator, pid 123") in its console. */
    static long childPid(String console, String what) {
        Matcher matcher = Pattern.compile("started " + what + ", pid (\\d+)").matcher(console);
        if (!matcher.find()) {
            throw new AssertionError("no '" + what + "' pid in the console:\n" + console);
        }
        return Long.parseLong(matcher.group(1));
    }

    /** A stand-in's command line: this test's class path, reduced to what the stand-ins load. */
    static String standIn(String mainClass) {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String reduced = Arrays.stream(classPath.split(File.pathSeparator))
                .filter(entry -> entry.contains("local-stack") || entry.contains("domain") || entry.contains("jackson"))
                .collect(Collectors.joining(File.pathSeparator));
        return JAVA + " " + String.join(" ", JVM_FLAGS) + " -cp " + reduced
                + " org.carla.leaderboard.localstack.standin." + mainClass;
    }

    @Override
    public void close() {
        for (Sidecar sidecar : sidecars) {
            synchronized (sidecar) {
                sidecar.ending = true;
            }
        }
        List<Process> processes;
        synchronized (this) {
            processes = List.copyOf(started);
        }
        for (Process process : processes) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
