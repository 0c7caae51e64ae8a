package org.carla.leaderboard.localstack.run;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.track.EvaluationConfig;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.localstack.EvalAiComponent;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.standin.EvaluatorScript;
import org.carla.leaderboard.localstack.standin.StandInRoutes;
import org.carla.leaderboard.localstack.standin.SubmissionKnobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What makes the whole system run on one machine in a couple of minutes, all of it configuration of the local stack
 * (never a service's default): the Job runner's image profiles (pod-runtime as packaged, the CARLA and
 * evaluator stand-ins for the simulator and the participants' images, a local folder for the Leaderboard image),
 * demo timings (short routes, a short logcopy period) and small tracks (few routes, one worker pair) through
 * {@code evaluation.*} overrides.
 */
public record LocalRunConfig(Path projectDir, Path workDir, int routes, Duration routeTime, Duration logsPeriod,
        Packaging packaging) {

    public static final List<String> SERVICES = List.of("ingest-service", "job-launcher", "results-relay",
            "ops-console");
    /** What the run starts of this repository's own modules: the services and pod-runtime (for the Job runner). */
    static final List<String> PROGRAMS = List.of("ingest-service", "job-launcher", "results-relay", "ops-console",
            "pod-runtime");
    /** The operators' page and API; signed in to with {@link #operatorToken()} on this stack (no OIDC here). */
    public static final String CONSOLE = "ops-console";
    /** The operator name the local token signs in as. */
    public static final String OPERATOR = "local-operator";
    /** Fast start-up for the many short-lived JVMs of a pod (each role, each stand-in). */
    static final String POD_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto -Xmx128m";
    static final List<String> SERVICE_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-Xmx256m");

    /**
     * The deadline of the CAPACITY scenario's track (Leaderboard 1.0 SENSORS, which no other scenario uses): enough for
     * its init containers and four routes once its pod runs on a loaded 2-core machine (with the test suite's other
     * modules beside e2e its three init containers took 94 s and 145 s and its four routes about 50 s, and 150 s ran
     * out), short enough that waiting past it costs little, since those pods (a lost node's and a spot interruption's
     * replacements, a resume's) wait with it.
     */
    public static final Duration CAPACITY_DEADLINE = Duration.ofSeconds(210);

    /**
     * The stuck rules that mend a lost message (domain {@code StuckRules}) at the demo's pace, so a run of a few
     * minutes sees them act: a launch request or a final report lost to an outage is sent again after a minute.
     * No progress for 15 min stays as it is: outages here are shorter, and a submission must never fail of them.
     */
    static final Map<String, String> STUCK_CHECKS = Map.of("stuck.check-every", "PT10S",
            "stuck.unlaunched-after", "PT1M", "stuck.unconfirmed-final-after", "PT1M");

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The demo: 4 routes of 3 s on one worker pair, logcopy every 2 s, the programs from their jars. */
    public static LocalRunConfig demo(Path projectDir, Path workDir) {
        return demo(projectDir, workDir, Packaging.JVM);
    }

    /** The demo with the programs packaged as {@code packaging} says. */
    public static LocalRunConfig demo(Path projectDir, Path workDir, Packaging packaging) {
        return new LocalRunConfig(projectDir.toAbsolutePath().normalize(), workDir.toAbsolutePath().normalize(), 4,
                Duration.ofSeconds(3), Duration.ofSeconds(2), packaging);
    }

    /** A module's packaged program: its jar, or its native executable ({@link Packaging#program}). */
    public Path program(String module) {
        return packaging.program(projectDir, module);
    }

    /** The application.properties a module's build packages (into its jar or its native executable). */
    public BuiltProperties builtProperties(String module) {
        return BuiltProperties.of(projectDir, module);
    }

    /** The command line that runs a module's packaged program as a service does (a small JVM, or the executable). */
    public List<String> serviceCommand(String module, List<String> systemProperties) {
        var options = new ArrayList<>(SERVICE_JVM_OPTIONS);
        options.addAll(systemProperties);
        return packaging.command(program(module), options);
    }

    public Path stackDir() {
        return workDir.resolve("stack");
    }

    public Path serviceDir(String service) {
        return workDir.resolve("services").resolve(service);
    }

    /** Per-submission stand-in knobs ({@link SubmissionKnobs}) and the stand-ins' state files (crash markers). */
    public Path knobsDir() {
        return workDir.resolve("standin-knobs");
    }

    Path imagesDir() {
        return workDir.resolve("images");
    }

    /**
     * Every phase of the domain's catalog made small: few routes, one pair, one allowed resume, a short deadline (the
     * CAPACITY scenario's phase a shorter one).
     */
    public Map<String, String> evaluation() {
        var overrides = new LinkedHashMap<String, String>();
        for (String phase : LocalStack.evaluationConfig(Map.of()).phases().keySet()) {
            String prefix = "evaluation.phases." + phase + ".";
            overrides.put(prefix + "routes", Integer.toString(routes));
            overrides.put(prefix + "worker-pairs", "1");
            overrides.put(prefix + "allowed-resumes", "1");
            overrides.put(prefix + "deadline", "PT15M");
        }
        // The CLAIMED scenario's track: two pairs claiming from the route ledger.
        overrides.put("evaluation.phases." + Scenario.CLAIMED_PHASE + ".schedule", "dynamic");
        overrides.put("evaluation.phases." + Scenario.CLAIMED_PHASE + ".worker-pairs", "2");
        // The PODS scenario's track: two pods of one pair, claiming from one route ledger; any team may submit.
        overrides.put("evaluation.phases." + Scenario.PODS_PHASE + ".schedule", "dynamic");
        overrides.put("evaluation.phases." + Scenario.PODS_PHASE + ".pods", Integer.toString(Scenario.PODS_OF_RUN));
        overrides.put("evaluation.phases." + Scenario.PODS_PHASE + ".requires-qualification", "false");
        // The CAPACITY scenario waits for a node longer than its deadline: a short one keeps that wait short.
        overrides.put("evaluation.phases." + Scenario.CAPACITY_PHASE + ".deadline", CAPACITY_DEADLINE.toString());
        return overrides;
    }

    /** The tracks the local run evaluates: the domain's catalog with {@link #evaluation()}'s overrides. */
    public EvaluationConfig tracks() {
        return LocalStack.evaluationConfig(evaluation());
    }

    /**
     * The route ids of a local Leaderboard image's routes files: 0…n−1 for 2.0, as its public files number them; from
     * 1 for 1.0, so a pair that passed route positions where the evaluator takes ids would fail.
     */
    public static List<String> routeIds(LeaderboardVersion version, int routes) {
        return StandInRoutes.ids(version == LeaderboardVersion.V1_0 ? 1 : 0, routes);
    }

    /** The Job runner's image profiles ({@code local-stack.images.*}). */
    public Map<String, String> stackSettings() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String standIns = standInClassPath();
        var settings = new LinkedHashMap<String, String>();
        // Every pair i of every pod listens on 2000 + 100 (i - 1): shifted per pod, as pods share the loopback here.
        settings.put("local-stack.kubernetes.pod-port-variables", "CARLA_PORT");
        // EvalAI's minute at the demo's pace: its throttle of each user, and the services' budgets of it, over it.
        settings.put(EvalAiComponent.THROTTLE_PERIOD, minute().toString());
        String podRuntime = "local-stack.images.pod-runtime.";
        settings.put(podRuntime + "image", "carla-leaderboard/pod-runtime:.*");
        // Its install then copies what runs it into the pod's volume: the JVM launcher, or the executable itself.
        settings.put(podRuntime + "command./usr/local/bin/pod-runtime",
                json(packaging.command(program("pod-runtime"), List.of())));
        // Each leaderboard's image: a folder of its own, with its Leaderboard version's evaluator script and routes.
        var images = new ArrayList<>(List.of("pod-runtime", "carla", "participant"));
        tracks().leaderboards().forEach((id, leaderboard) -> {
            String profile = "local-stack.images." + id + ".";
            Path root = leaderboardImage(id);
            settings.put(profile + "image", Pattern.quote(leaderboard.leaderboardImage()));
            settings.put(profile + "env.LEADERBOARD_ROOT", root.resolve("leaderboard").toString());
            settings.put(profile + "env.SCENARIO_RUNNER_ROOT", root.resolve("scenario_runner").toString());
            settings.put(profile + "env.CARLA_PYTHON_API_ROOT", root.resolve("PythonAPI").toString());
            images.add(id);
        });
        // CARLA's image: each simulator image of a leaderboard a folder of its own, its VERSION the image's tag, as
        // CARLA's package has it; any other CARLA image one folder without a VERSION.
        var carlaImages = new java.util.TreeSet<String>();
        tracks().leaderboards().values().forEach(leaderboard -> carlaImages.add(leaderboard.simulatorImage()));
        String standInJava = java + " -cp " + standIns;
        int carlaImage = 0;
        for (String image : carlaImages) {
            String id = "carla-" + ++carlaImage;
            carla(settings, id, Pattern.quote(image), carlaRoot(image), standInJava);
            settings.put("local-stack.images." + id + ".order", "50");
            images.add(id);
        }
        carla(settings, "carla", "carla-leaderboard/carla:.*", imagesDir().resolve("carla"), standInJava);
        // The UNPULLABLE scenario's image is in no registry.
        String unpullable = "local-stack.images.unpullable.";
        settings.put(unpullable + "image", ".*:" + Scenario.UNPULLABLE.label());
        settings.put(unpullable + "order", "10");
        settings.put(unpullable + "pull-error", "not found");
        // Every other image is a participant's: the evaluator stand-in drives the routes.
        String participant = "local-stack.images.participant.";
        settings.put(participant + "image", ".*");
        settings.put(participant + "order", "1000");
        settings.put(participant + "env.TEAM_AGENT", "/workspace/team_code/agent.py");
        settings.put(participant + "env.TEAM_CONFIG", "/workspace/team_code/config.yaml");
        // Run with the Leaderboard volume's evaluator script, as Python runs the real one: it names the Leaderboard.
        settings.put(participant + "override-env.EVALUATOR_COMMAND", java + " -cp " + standIns
                + " org.carla.leaderboard.localstack.standin.EvaluatorStandIn ${LEADERBOARD_ROOT}/"
                + EvaluatorScript.PATH);
        settings.put(participant + "override-env.EVALUATOR_STANDIN_ROUTE_SECONDS",
                Double.toString(routeTime.toMillis() / 1000.0));
        for (String id : images) {
            settings.put("local-stack.images." + id + ".env.JDK_JAVA_OPTIONS", POD_JVM_OPTIONS);
            settings.put("local-stack.images." + id + ".override-env." + SubmissionKnobs.DIR, knobsDir().toString());
        }
        return settings;
    }

    /** The profile of a CARLA image: its root, and the CARLA stand-in for CarlaUE4.sh. */
    private void carla(Map<String, String> settings, String id, String image, Path root, String standInJava) {
        String carla = "local-stack.images." + id + ".";
        settings.put(carla + "image", image);
        settings.put(carla + "env.CARLA_ROOT", root.toString());
        settings.put(carla + "override-env.CARLA_SERVER_COMMAND", standInJava
                + " org.carla.leaderboard.localstack.standin.CarlaServerStandIn -{renderer} -carla-rpc-port={port}"
                + " -RenderOffScreen -nosound");
        settings.put(carla + "override-env.CARLA_STANDIN_STARTUP_SECONDS", "1");
    }

    /** The root of a simulator image's CARLA package: a folder named by the image's tag. */
    private Path carlaRoot(String image) {
        return imagesDir().resolve("carla-" + carlaVersion(image).replaceAll("[^0-9A-Za-z._-]", "_"));
    }

    /** The CARLA server's version in a local simulator image: its tag ({@code carla-leaderboard/carla:0.9.15}). */
    public static String carlaVersion(String image) {
        int colon = image.lastIndexOf(':');
        return colon < 0 || image.lastIndexOf('/') > colon ? "latest" : image.substring(colon + 1);
    }

    /**
     * What a service gets on top of the stack's {@code quarkusConfig()}: the demo's logcopy period and image-pull grace;
     * the relay's cancel check at the same compressed pace (a cancel while Pending is noticed in seconds, not the
     * minute of production); the stuck rules' demo pace; for ops-console, a static operator token instead of OIDC.
     */
    public Map<String, String> serviceConfig(String service) {
        if (service.equals("job-launcher")) {
            // an image that cannot be pulled ends its run after a few of the kubelet's pulls, not three minutes
            return Map.of("launcher.logs-period", logsPeriod.toString(), "launcher.image-pull-grace", "PT15S");
        }
        if (service.equals("results-relay")) {
            var config = new java.util.HashMap<>(STUCK_CHECKS);
            config.put("relay.cancel-check.every", minute().toString());
            return Map.copyOf(config);
        }
        if (service.equals("ingest-service")) {
            return STUCK_CHECKS;
        }
        if (service.equals(CONSOLE)) {
            // The stand-in's challenge (EvalAiOptions' default), for records written before they held challenge_id.
            return Map.of("quarkus.oidc.tenant-enabled", "false",
                    "console.auth.operator-tokens." + OPERATOR, operatorToken(), "console.challenge-pk", "1");
        }
        return Map.of();
    }

    /**
     * A minute of EvalAI's time at the demo's pace (logcopy's period, at least a second): the relay's cancel check asks
     * about each run once in it, and EvalAI's throttle counts each user's requests over it.
     */
    Duration minute() {
        return Duration.ofSeconds(Math.max(1, logsPeriod.toSeconds()));
    }

    /** The file that holds the local operator token: owner-only, in the console's folder of the run. */
    public Path operatorTokenFile() {
        return serviceDir(CONSOLE).resolve("operator-token");
    }

    /** The local operator token: drawn at random once per run and kept in {@link #operatorTokenFile()}. */
    public synchronized String operatorToken() {
        Path file = operatorTokenFile();
        try {
            if (Files.isRegularFile(file)) {
                return Files.readString(file).trim();
            }
            byte[] random = new byte[24];
            new java.security.SecureRandom().nextBytes(random);
            String token = java.util.HexFormat.of().formatHex(random);
            Files.createDirectories(file.getParent());
            Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, token + "\n");
            return token;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the operator token in " + file, e);
        }
    }

    /**
     * Creates the folders the image profiles point at: each leaderboard's image (its evaluator script, and the routes
     * and scenarios files its tracks name, the routes numbered by {@link #routeIds}), CARLA's root, the knobs.
     */
    public void prepare() {
        try {
            EvaluationConfig tracks = tracks();
            for (var leaderboard : tracks.leaderboards().entrySet()) {
                prepareLeaderboard(leaderboard.getKey(), LeaderboardVersion.parse(leaderboard.getValue().version()),
                        tracks);
            }
            Files.createDirectories(imagesDir().resolve("carla"));
            for (var leaderboard : tracks.leaderboards().values()) {
                Path root = Files.createDirectories(carlaRoot(leaderboard.simulatorImage()));
                Files.writeString(root.resolve("VERSION"), carlaVersion(leaderboard.simulatorImage()) + "\n");
            }
            // The stand-ins create their once-markers here, as whichever user their container runs as.
            Files.setAttribute(Files.createDirectories(knobsDir()), "unix:mode", 0777);
            for (var jar : standInJars().entrySet()) {
                Files.createDirectories(jar.getValue().getParent());
                Files.copy(jar.getKey(), jar.getValue(), StandardCopyOption.REPLACE_EXISTING);
                Files.setAttribute(jar.getValue(), "unix:mode", 0644);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the local run's image folders under " + imagesDir(), e);
        }
    }

    private Path leaderboardImage(String leaderboard) {
        return imagesDir().resolve(leaderboard);
    }

    private void prepareLeaderboard(String id, LeaderboardVersion version, EvaluationConfig tracks)
            throws IOException {
        Path root = leaderboardImage(id).resolve("leaderboard");
        EvaluatorScript.write(root, version);
        var written = new HashMap<Path, Integer>();
        for (var phase : tracks.phases().values()) {
            if (!phase.leaderboard().equals(id)) {
                continue;
            }
            Path routes = inLeaderboardVolume(root, phase.routesFile());
            Integer before = written.putIfAbsent(routes, phase.routes());
            if (before != null && before != phase.routes()) {
                throw new IllegalStateException(id + "'s routes file " + phase.routesFile() + " is given " + before
                        + " and " + phase.routes() + " routes by two tracks");
            }
            StandInRoutes.write(routes, version, routeIds(version, phase.routes()));
            if (phase.scenariosFile().isPresent()) {
                Path scenarios = inLeaderboardVolume(root, phase.scenariosFile().get());
                Files.createDirectories(scenarios.getParent());
                Files.writeString(scenarios, "{\"available_scenarios\": []}\n");
            }
        }
        for (String folder : List.of("scenario_runner", "PythonAPI")) {
            Files.writeString(Files.createDirectories(leaderboardImage(id).resolve(folder)).resolve("README.txt"),
                    "The local run's stand-in for the Leaderboard image's " + folder + " folder.\n");
        }
        // What init reads as the versions, where the real image has them: a checkout's .git, ScenarioRunner's
        // VERSION, the PythonAPI's egg.
        RunVersions versions = imageVersions(id, version, tracks.leaderboards().get(id).simulatorImage(), 1);
        Path git = Files.createDirectories(root.resolve(".git/refs/heads"));
        Files.writeString(root.resolve(".git/HEAD"), "ref: refs/heads/" + version.branch() + "\n");
        Files.writeString(git.resolve(version.branch()), versions.leaderboard().orElseThrow() + "\n");
        Files.writeString(leaderboardImage(id).resolve("scenario_runner/scenario_runner.py"), "# Version of "
                + "scenario_runner\nVERSION = '" + versions.scenarioRunner().orElseThrow() + "'\n");
        Files.write(Files.createDirectories(leaderboardImage(id).resolve("PythonAPI/carla/dist")).resolve("carla-"
                + versions.carlaPythonApi().orElseThrow() + "-py3.7-linux-x86_64.egg"), new byte[0]);
    }

    /**
     * The versions init reads in the local image of {@code leaderboard}: a commit of its own (the SHA-1 of its id),
     * ScenarioRunner's and the PythonAPI's of its Leaderboard version's releases; and the CARLA server's in its
     * simulator image, the image's tag.
     */
    public static RunVersions imageVersions(String leaderboard, LeaderboardVersion version, String simulatorImage,
            int run) {
        String commit;
        try {
            commit = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1")
                    .digest(leaderboard.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        boolean two = version == LeaderboardVersion.V2_0;
        return new RunVersions(run, Optional.of(commit), Optional.of(two ? "0.9.13" : "0.9.10"),
                Optional.of(two ? "0.9.15" : "0.9.10"), Optional.of(carlaVersion(simulatorImage)));
    }

    /** Where a path of the agent's Leaderboard volume ({@code /workspace/leaderboard/...}) is in an image's root. */
    private static Path inLeaderboardVolume(Path root, String path) {
        Path relative = Path.of(PodEnvironment.LEADERBOARD_DIR).relativize(Path.of(path)).normalize();
        if (relative.startsWith("..") || relative.isAbsolute()) {
            throw new IllegalStateException(path + " is not in the Leaderboard volume (" + PodEnvironment.LEADERBOARD_DIR
                    + ")");
        }
        return root.resolve(relative);
    }

    /**
     * The stand-ins need the local-stack classes, the domain's results model and Jackson: this JVM's class folders as
     * they are, its jars as copies in the images folder (as an image holds them), because a container may run as
     * another user than this JVM's and the local Maven repository may be private to its owner ({@code /root/.m2}).
     */
    String standInClassPath() {
        Map<Path, Path> jars = standInJars();
        return standInEntries().stream().map(entry -> jars.getOrDefault(entry, entry).toString())
                .collect(Collectors.joining(File.pathSeparator));
    }

    private static List<Path> standInEntries() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> entry.contains("local-stack") || entry.contains("domain") || entry.contains("jackson"))
                .map(Path::of).toList();
    }

    /** Each jar of the stand-ins' class path and where the images folder holds its copy. */
    private Map<Path, Path> standInJars() {
        Map<Path, Path> jars = new LinkedHashMap<>();
        for (Path entry : standInEntries()) {
            if (Files.isRegularFile(entry)) {
                jars.put(entry, imagesDir().resolve("standins").resolve(jars.size() + "-" + entry.getFileName()));
            }
        }
        return jars;
    }

    private static String json(List<String> argv) {
        try {
            return JSON.writeValueAsString(argv);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
