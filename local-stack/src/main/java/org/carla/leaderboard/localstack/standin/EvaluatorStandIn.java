package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.results.EntryStatus;
import org.carla.leaderboard.domain.results.ResumePoint;
import org.carla.leaderboard.domain.route.Route;
import org.carla.leaderboard.domain.track.LeaderboardVersion;

/**
 * Stands in for the Leaderboard's {@code leaderboard_evaluator.py}, 1.0 or 2.0 as the Leaderboard volume's script
 * names it ({@link EvaluatorScript}, its first argument): that branch's arguments, parsed as its argparse does
 * ({@link EvaluatorArgparse}: anything unknown or missing is exit 2 with argparse's message), the same checkpoint file,
 * the same exit codes (0, or 255 for {@code sys.exit(-1)} after a simulation crash). It connects to the CARLA stand-in
 * and "drives" each route of its subset for {@code EVALUATOR_STANDIN_ROUTE_SECONDS} while the server ticks; a closed
 * connection or no tick for {@code --timeout} seconds is a simulation crash, as it is for the real client. A 1.0 route
 * whose {@code --scenarios} file cannot be read fails to load, as the real one's does.
 *
 * <p>Knobs (environment): {@code EVALUATOR_STANDIN_ROUTE_SECONDS} (default 2), {@code EVALUATOR_STANDIN_SEED}
 * (default: {@code SUBMISSION_ID}), {@code EVALUATOR_STANDIN_CRASH_AT_ROUTE} (a route id: the process dies while
 * driving it, as a Python crash would, exit 1), {@code EVALUATOR_STANDIN_HANG_AT_ROUTE} (a route id: stops writing
 * and blocks while driving it), {@code EVALUATOR_STANDIN_FAIL_ONCE_MARKER} (a file: the crash or hang happens only
 * when it does not exist yet, and creates it), {@code EVALUATOR_STANDIN_FAIL_POD_MARKER} (a file: the crash or hang
 * happens in every run of the pod that created it, none of a later pod), {@code EVALUATOR_STANDIN_INVALID_SENSORS=true} (the first route is
 * rejected for invalid sensors), {@code EVALUATOR_STANDIN_SENSORS} (comma-separated CARLA sensor types),
 * {@code EVALUATOR_STANDIN_KILL_AGENT_AT_ROUTE} (a route id: SIGKILL to its supervisor and itself as the route
 * starts, under the same markers), a route driven until EvalAI shows the submission's results
 * ({@link HeldRoute}), and the hostile participant's knobs ({@link HostileParticipant}).
 */
public final class EvaluatorStandIn {

    static final int CRASHED_EXIT_CODE = 255;
    static final int PYTHON_ERROR_EXIT_CODE = 1;
    static final String DEFAULT_SENSORS = "sensor.camera.rgb,sensor.camera.rgb,sensor.lidar.ray_cast,"
            + "sensor.other.radar,sensor.other.gnss,sensor.other.imu,sensor.speedometer";
    private static final Map<String, String> SENSOR_ICONS = Map.of(
            "sensor.camera.rgb", "carla_camera", "sensor.lidar.ray_cast", "carla_lidar",
            "sensor.other.radar", "carla_radar", "sensor.other.gnss", "carla_gnss", "sensor.other.imu", "carla_imu",
            "sensor.opendrive_map", "carla_opendrive_map", "sensor.speedometer", "carla_speedometer");

    record Config(String name, int repetition, int index) {
        String routeId() {
            return name + "_rep" + repetition;
        }
    }

    /** The once-marker knobs' kill: SIGKILL to the supervising process, only when this is a process of its own. */
    static final String KILL_AGENT_AT_ROUTE = "EVALUATOR_STANDIN_KILL_AGENT_AT_ROUTE";
    /** Per-route durations, {@code <route id>:<seconds>,...}. */
    public static final String ROUTE_SECONDS_BY_ID = "EVALUATOR_STANDIN_ROUTE_SECONDS_BY_ID";
    private static boolean ownProcess;

    private final LeaderboardVersion version;
    /** The parsed arguments by argparse's {@code dest}, defaults included. */
    private final Map<String, String> args;
    private final Map<String, String> env;
    private final LeaderboardCheckpoint statistics;
    private final HostileParticipant hostile;
    private final Optional<HeldRoute> held;
    private final long routeMillis;
    private final String seed;
    private volatile Socket carla;
    private boolean sensorsInitialized;
    private List<String> sensors;

    EvaluatorStandIn(LeaderboardVersion version, Map<String, String> args, Map<String, String> env) {
        this.version = version;
        this.args = args;
        this.env = env;
        Path checkpoint = Path.of(args.get("checkpoint"));
        this.statistics = new LeaderboardCheckpoint(checkpoint);
        this.hostile = HostileParticipant.of(env, checkpoint, System.out);
        this.held = HeldRoute.of(env);
        this.routeMillis = Math.round(Double.parseDouble(env.getOrDefault("EVALUATOR_STANDIN_ROUTE_SECONDS", "2")) * 1000);
        this.seed = Optional.ofNullable(env.get("EVALUATOR_STANDIN_SEED"))
                .orElse(env.getOrDefault("SUBMISSION_ID", "stand-in"));
    }

    /** {@code EvaluatorStandIn <leaderboard_evaluator.py> [ARGUMENTS...]}, as {@code python3 <script> [ARGUMENTS...]}. */
    public static void main(String[] argv) throws Exception {
        if (argv.length == 0) {
            System.err.println("usage: EvaluatorStandIn LEADERBOARD_EVALUATOR_PY [ARGUMENT...]");
            System.exit(2);
        }
        Path script = Path.of(argv[0]);
        LeaderboardVersion version;
        try {
            version = EvaluatorScript.read(script);
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("evaluator stand-in: can't run " + script + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        Map<String, String> env = SubmissionKnobs.environment(System.getenv());
        var parsed = EvaluatorArgparse.of(version).parse(script.getFileName().toString(),
                List.of(argv).subList(1, argv.length), env);
        if (parsed instanceof EvaluatorArgparse.Exit exit) {
            System.out.print(exit.stdout());
            System.err.print(exit.stderr());
            System.exit(exit.code());
        }
        ownProcess = true;
        EvaluatorStandIn evaluator;
        try {
            evaluator = new EvaluatorStandIn(version, ((EvaluatorArgparse.Parsed) parsed).values(), env);
        } catch (IllegalArgumentException e) {
            System.err.println("evaluator stand-in: " + e.getMessage());
            System.exit(2);
            return;
        }
        // SIGTERM: drop the CARLA connection at once (a JVM blocked in a socket otherwise exits slowly)
        Runtime.getRuntime().addShutdownHook(new Thread(evaluator::disconnect));
        System.exit(evaluator.run());
    }

    /**
     * An evaluator of {@code version} given {@code argv} (tests, in-process).
     *
     * @throws IllegalArgumentException with argparse's message when it would exit
     */
    static EvaluatorStandIn of(LeaderboardVersion version, List<String> argv, Map<String, String> env) {
        var parsed = EvaluatorArgparse.of(version).parse("leaderboard_evaluator.py", argv, env);
        if (parsed instanceof EvaluatorArgparse.Exit exit) {
            throw new IllegalArgumentException("exit " + exit.code() + ": " + exit.stderr() + exit.stdout());
        }
        return new EvaluatorStandIn(version, ((EvaluatorArgparse.Parsed) parsed).values(), env);
    }

    private void disconnect() {
        Socket socket = carla;
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // exiting anyway
            }
        }
    }

    int run() throws IOException, InterruptedException {
        List<Config> configs = configs();
        if (hostile.claimsAllRoutes()) {
            return claimAllRoutes(configs);
        }
        int total = configs.size();
        int index = 0;
        boolean resume = !args.get("resume").isEmpty(); // argparse type=bool: any non-empty text is True
        boolean resumed = resume && validateAndResume(configs);
        if (resumed) {
            index = resumeIndex;
            statistics.addFileRecords(statistics.read().orElseThrow());
            say("Resuming from route " + index + " of " + total);
        } else {
            statistics.clear();
        }
        statistics.saveProgress(index, total);
        statistics.write();

        boolean crashed = false;
        while (index < total && !crashed) {
            Config config = configs.get(index);
            index++;
            crashed = runRoute(config);
            statistics.saveProgress(index, total);
            statistics.write();
        }
        if (carla != null) {
            carla.close();
        }
        if (!crashed) {
            say("\033[1m> Registering the global statistics\033[0m");
            statistics.computeGlobalStatistics();
            statistics.validateAndWrite(sensorsInitialized, false).ifPresent(error ->
                    say("The statistics are badly formed. Setting their status to 'Invalid':\n> " + error));
            hostile.actOnVolume();
            hostile.replaceCheckpoint();
        }
        return crashed ? CRASHED_EXIT_CODE : 0;
    }

    /** The hostile participant's shortcut: every route of the subset recorded as driven, none driven. */
    private int claimAllRoutes(List<Config> configs) throws IOException {
        statistics.clear();
        statistics.saveSensors(sensorIcons());
        for (Config config : configs) {
            statistics.register(config.index(), hostile.record(HostileParticipant.claimed(config.routeId(),
                    config.index())));
        }
        statistics.saveProgress(configs.size(), configs.size());
        statistics.computeGlobalStatistics();
        statistics.validateAndWrite(true, false);
        hostile.actOnVolume();
        hostile.replaceCheckpoint();
        return 0;
    }

    private int resumeIndex;

    /** {@code RouteIndexer.validate_and_resume}, as the domain states it: resume only from a checkpoint of the same routes. */
    private boolean validateAndResume(List<Config> configs) {
        ResumePoint point = ResumePoint.of(statistics.read(), Optional.of(configs.stream().map(Config::routeId).toList()));
        point.refusal().ifPresent(reason -> say("Problem reading checkpoint. " + reason));
        resumeIndex = point.index();
        return point.refusal().isEmpty();
    }

    /** One route, as {@code _load_and_run_scenario}: true when the simulation crashed and the evaluator must stop. */
    private boolean runRoute(Config config) throws IOException, InterruptedException {
        say("\n\033[1m========= Preparing " + config.name() + " (repetition " + config.repetition() + ") =========\033[0m");
        statistics.createRouteData(config.routeId(), config.index());
        say("\033[1m> Loading the world\033[0m");
        Optional<String> unloadable = scenariosProblem();
        if (unloadable.isPresent()) {
            say("\n\033[91mThe scenario could not be loaded:\n> " + unloadable.get() + "\033[0m");
            return crash(config, "Simulation crashed");
        }
        try {
            connect();
        } catch (IOException e) {
            say("\n\033[91mThe scenario could not be loaded:\n" + e + "\033[0m");
            return crash(config, "Simulation crashed");
        }
        say("\033[1m> Setting up the agent\033[0m");
        if (sensors == null) {
            if (Boolean.parseBoolean(env.getOrDefault("EVALUATOR_STANDIN_INVALID_SENSORS", "false"))) {
                say("\n\033[91mThe sensor's configuration used is invalid:\nIllegal sensor used for Track [SENSORS]!\033[0m\n");
                statistics.saveEntryStatus(EntryStatus.REJECTED);
                statistics.register(config.index(), RouteOutcome.failed(config.routeId(), config.index(),
                        "Agent's sensors were invalid"));
                return true;
            }
            sensors = sensorIcons();
            statistics.saveSensors(sensors);
            statistics.write();
            sensorsInitialized = true;
        }
        say("\033[1m> Running the route\033[0m");
        String routeNumber = config.name().substring(config.name().indexOf('_') + 1);
        if (routeNumber.equals(env.get("EVALUATOR_STANDIN_CRASH_AT_ROUTE")) && failNow()) {
            say("Traceback (most recent call last):\n  File \"leaderboard_evaluator.py\", line 1, in <module>\n"
                    + "RuntimeError: simulated crash of the evaluator (EVALUATOR_STANDIN_CRASH_AT_ROUTE)");
            Runtime.getRuntime().halt(PYTHON_ERROR_EXIT_CODE);
        }
        if (hostile.actsAt(routeNumber)) {
            hostile.actOnVolume();
        }
        if (routeNumber.equals(env.get(KILL_AGENT_AT_ROUTE)) && failNow()) {
            killContainer();
        }
        if (routeNumber.equals(env.get("EVALUATOR_STANDIN_HANG_AT_ROUTE")) && failNow()) {
            Object forever = new Object();
            synchronized (forever) {
                while (true) {
                    forever.wait(); // a hung agent: no output, no progress, until stopped
                }
            }
        }
        Optional<String> failure = drive(config, routeNumber);
        say("\033[1m> Stopping the route\033[0m");
        if (failure.isPresent()) {
            say("\n\033[91mError during the simulation:\n" + failure.get() + "\033[0m");
            return crash(config, "Simulation crashed");
        }
        statistics.register(config.index(), hostile.record(RouteOutcome.drive(seed, config.routeId(), config.index())));
        say("Route " + config.routeId() + " finished: " + statistics.record(config.index()).status());
        return false;
    }

    /** Leaderboard 1.0 reads its {@code --scenarios} file as each route loads: one it cannot read fails the load. */
    private Optional<String> scenariosProblem() {
        if (!version.takesScenarios()) {
            return Optional.empty();
        }
        Path scenarios = Path.of(args.get("scenarios"));
        return Files.isRegularFile(scenarios) && Files.isReadable(scenarios) ? Optional.empty()
                : Optional.of("[Errno 2] No such file or directory: '" + scenarios + "'");
    }

    private List<String> sensorIcons() {
        List<String> icons = new ArrayList<>();
        for (String type : env.getOrDefault("EVALUATOR_STANDIN_SENSORS", DEFAULT_SENSORS).split(",")) {
            icons.add(SENSOR_ICONS.getOrDefault(type.trim(), type.trim()));
        }
        return icons;
    }

    /**
     * The agent container dies as the OOM killer or an eviction kills it: SIGKILL to the supervising process (the
     * container's pod-runtime, which so writes no crash file) and to this one, with no output and no goodbye. The
     * routes driven so far are in the checkpoint already (written after each route).
     */
    private static void killContainer() {
        if (!ownProcess) {
            throw new IllegalStateException(KILL_AGENT_AT_ROUTE + " needs the stand-in in a process of its own: "
                    + "it kills its parent");
        }
        ProcessHandle.current().parent().ifPresent(ProcessHandle::destroyForcibly);
        Runtime.getRuntime().halt(137);
    }

    /**
     * How long the route takes: {@code EVALUATOR_STANDIN_ROUTE_SECONDS_BY_ID} ({@code 10:3,11:0.5}: route id, seconds)
     * for the routes it names, else {@code EVALUATOR_STANDIN_ROUTE_SECONDS}: routes of uneven durations.
     */
    private long routeMillis(String routeNumber) {
        for (String pair : env.getOrDefault(ROUTE_SECONDS_BY_ID, "").split(",")) {
            int colon = pair.indexOf(':');
            if (colon > 0 && pair.substring(0, colon).trim().equals(routeNumber)) {
                return Math.round(Double.parseDouble(pair.substring(colon + 1).trim()) * 1000);
            }
        }
        return routeMillis;
    }

    private boolean crash(Config config, String message) {
        statistics.saveEntryStatus(EntryStatus.CRASHED);
        statistics.register(config.index(), RouteOutcome.failed(config.routeId(), config.index(), message));
        return true;
    }

    /**
     * Drives the route for its time (the held route longer: {@link HeldRoute}) while CARLA ticks; the failure when
     * CARLA went away or stopped ticking.
     */
    private Optional<String> drive(Config config, String routeNumber) throws IOException {
        double timeout = Double.parseDouble(args.get("timeout"));
        long millis = routeMillis(routeNumber);
        long end = System.nanoTime() + millis * 1_000_000L;
        HeldRoute.Hold hold = held.filter(route -> route.at(routeNumber)).map(HeldRoute::start).orElse(null);
        long lastTick = System.nanoTime();
        long lastReport = System.nanoTime();
        InputStream in = carla.getInputStream();
        carla.setSoTimeout(100);
        while (System.nanoTime() < end || hold != null && !hold.over()) {
            try {
                if (in.read() < 0) {
                    return Optional.of("RuntimeError: the CARLA server closed the connection");
                }
                lastTick = System.nanoTime();
            } catch (SocketTimeoutException e) {
                if (System.nanoTime() - lastTick > timeout * 1e9) {
                    return Optional.of("RuntimeError: time-out of " + (long) (timeout * 1000) + "ms while waiting for the simulator");
                }
            } catch (IOException e) {
                return Optional.of("RuntimeError: " + e.getMessage());
            }
            if (System.nanoTime() - lastReport > 1_000_000_000L) {
                lastReport = System.nanoTime();
                say("  " + config.routeId() + ": driving");
                writeLiveResults(config, 1 - (end - System.nanoTime()) / (millis * 1e6));
            }
        }
        return Optional.empty();
    }

    /** 2.0's {@code write_live_results}: the route being driven, for a human watching {@code --debug-checkpoint}. */
    private void writeLiveResults(Config config, double done) throws IOException {
        String file = args.get("debug_checkpoint");
        if (file == null) {
            return; // 1.0 has no live results
        }
        Files.writeString(Path.of(file), String.format(java.util.Locale.ROOT, "Route id: %s%n%nScores:%n"
                + "    Route completion:   %.3f%n", config.routeId(), Math.min(100.0, 100 * done)));
    }

    private void connect() throws IOException {
        if (carla != null && !carla.isClosed()) {
            return;
        }
        carla = new Socket();
        carla.connect(new InetSocketAddress(args.get("host"), Integer.parseInt(args.get("port"))), 2000);
    }

    /**
     * With a once-marker file, the scripted failure happens once: the run that creates the marker. With a pod-marker
     * file, it happens in every run of the pod ({@code HOSTNAME}) that created the marker, and never in a later pod:
     * the first Job fails past its restarts, a resumed Job runs clean.
     */
    private boolean failNow() throws IOException {
        String podMarker = env.get("EVALUATOR_STANDIN_FAIL_POD_MARKER");
        if (podMarker != null && !podMarker.isBlank()) {
            String pod = env.getOrDefault("HOSTNAME", "");
            try {
                Files.writeString(Path.of(podMarker), pod, java.nio.file.StandardOpenOption.CREATE_NEW);
                return true;
            } catch (java.nio.file.FileAlreadyExistsException e) {
                return Files.readString(Path.of(podMarker)).equals(pod);
            }
        }
        String marker = env.get("EVALUATOR_STANDIN_FAIL_ONCE_MARKER");
        if (marker == null || marker.isBlank()) {
            return true;
        }
        try {
            Files.createFile(Path.of(marker));
            return true;
        } catch (java.nio.file.FileAlreadyExistsException e) {
            return false;
        }
    }

    /** {@code RouteIndexer}: every route of the subset, each repeated; index = position in this evaluator's list. */
    private List<Config> configs() throws IOException {
        int repetitions = Integer.parseInt(args.get("repetitions"));
        List<Config> configs = new ArrayList<>();
        List<Route> routes = RouteSelection.read(Path.of(args.get("routes")), args.get("routes_subset"), version);
        for (int i = 0; i < routes.size(); i++) {
            for (int repetition = 0; repetition < repetitions; repetition++) {
                configs.add(new Config("RouteScenario_" + routes.get(i).id(), repetition, i * repetitions + repetition));
            }
        }
        return configs;
    }

    static void say(String line) {
        System.out.println(line);
    }
}
