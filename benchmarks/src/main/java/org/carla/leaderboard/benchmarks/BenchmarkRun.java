package org.carla.leaderboard.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.carla.leaderboard.localstack.run.BuiltProperties;
import org.carla.leaderboard.localstack.run.Packaging;

/**
 * Runs the benchmarks on this machine and prints one table; exits non-zero, with the reasons, when a benchmark failed
 * or measured nothing ({@link Checks}). Started by {@code benchmarks/run.sh} from the repository root (the jars and
 * scripts are found from there), and at smoke size by the build ({@code BenchmarkSmokeIT}).
 *
 * <pre>
 * BenchmarkRun [--only N]... [--quick | --smoke] [--native] [--set SERVICE:KEY=VALUE]... [--leaderboard-checkout DIR]
 *              [--leaderboard-cloud-checkout DIR] [--repo DIR] [--out FILE]
 * </pre>
 */
public final class BenchmarkRun {

    static final int BENCHMARKS = 7;
    private static final String USAGE = "usage: [--only N]... [--quick | --smoke] [--native] [--set SERVICE:KEY=VALUE]... "
            + "[--leaderboard-checkout DIR] [--leaderboard-cloud-checkout DIR] [--repo DIR] [--out FILE]";

    /** What every benchmark gets: the repository, the work folder, the options, the table and the checks. */
    record Context(Path repo, Path work, Size size, Packaging packaging, Optional<Path> leaderboard,
            Optional<Path> leaderboardCloud, Map<String, Map<String, String>> serviceSettings, Table table,
            Checks checks) {

        Path podRuntimeJar() {
            return jar("pod-runtime");
        }

        /** A module's packaged Quarkus application. */
        Path jar(String module) {
            return repo.resolve(module + "/target/quarkus-app/quarkus-run.jar");
        }

        String classPath() {
            return System.getProperty("java.class.path");
        }

        String java() {
            return ProcessHandle.current().info().command().orElse("java");
        }

        /**
         * Starts a service as {@code --native} says (its jar, or its native executable) with the benchmark's
         * configuration and what {@code --set} gave it; returns once it is ready. A native executable takes the
         * options' system properties ({@code -D}) and memory bounds ({@code -XX:MaxRAM}, {@code -Xmx}), which it
         * understands as a JVM does, and none of the JVM's other flags.
         */
        Service startService(String service, Path workDir, Map<String, String> config, List<String> jvmOptions)
                throws Exception {
            var all = new HashMap<>(config);
            all.putAll(serviceSettings.getOrDefault(service, Map.of()));
            Path program = packaging.program(repo, service);
            if (!Files.isRegularFile(program)) {
                throw new IllegalStateException(service + " is not built: no " + program + " (" + packaging.buildHint()
                        + ")");
            }
            return Service.start(service, packaging.command(program, jvmOptions), workDir, all,
                    Duration.ofSeconds(180));
        }

        /**
         * {@code -XX:MaxRAM} at the memory limit of the service's pod, as its build generates the manifest
         * ({@code quarkus.kubernetes.resources.limits.memory} in the application.properties it packaged): a JVM or a
         * native executable in the pod sizes its heap from that limit, and so does the service here.
         */
        String podMemoryLimit(String service) {
            return BuiltProperties.of(repo, service).maxRamOption();
        }

        /** How the services run, as the rows that measure them say it. */
        String servicesAs() {
            return packaging == Packaging.NATIVE ? "native executable" : "JDK 17";
        }
    }

    /** The command line. */
    record Options(Set<Integer> only, Size size, Packaging packaging, Map<String, Map<String, String>> serviceSettings,
            Optional<Path> leaderboard, Optional<Path> leaderboardCloud, Path repo, Path out) {

        static Options parse(String... args) {
            Set<Integer> only = new LinkedHashSet<>();
            Size size = Size.FULL;
            Packaging packaging = Packaging.JVM;
            Map<String, Map<String, String>> settings = new HashMap<>();
            Optional<Path> leaderboard = Optional.empty();
            Optional<Path> cloud = Optional.empty();
            Path repo = Path.of("");
            Path out = null;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--only" -> only.add(benchmark(value(args, ++i)));
                    case "--quick" -> size = Size.QUICK;
                    case "--smoke" -> size = Size.SMOKE;
                    case "--native" -> packaging = Packaging.NATIVE;
                    case "--set" -> setting(value(args, ++i), settings);
                    case "--leaderboard-checkout" -> leaderboard = Optional.of(path(value(args, ++i)));
                    case "--leaderboard-cloud-checkout" -> cloud = Optional.of(path(value(args, ++i)));
                    case "--repo" -> repo = path(value(args, ++i));
                    case "--out" -> out = path(value(args, ++i));
                    default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; " + USAGE);
                }
            }
            repo = repo.toAbsolutePath().normalize();
            return new Options(only, size, packaging, settings, leaderboard, cloud, repo,
                    out != null ? out : repo.resolve("benchmarks/target/results.md"));
        }

        private static String value(String[] args, int i) {
            if (i >= args.length) {
                throw new IllegalArgumentException(args[i - 1] + " needs a value; " + USAGE);
            }
            return args[i];
        }

        private static int benchmark(String value) {
            try {
                int n = Integer.parseInt(value);
                if (n >= 1 && n <= BENCHMARKS) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // said below
            }
            throw new IllegalArgumentException("--only takes a benchmark from 1 to " + BENCHMARKS + ", not " + value);
        }

        /** {@code SERVICE:KEY=VALUE}: a configuration key of a service the benchmarks start from its jar. */
        private static void setting(String value, Map<String, Map<String, String>> settings) {
            int colon = value.indexOf(':');
            int equals = value.indexOf('=', colon + 1);
            if (colon < 1 || equals < colon + 2) {
                throw new IllegalArgumentException("--set takes SERVICE:KEY=VALUE (e.g. job-launcher:"
                        + "launcher.consumer.max-in-flight=8), not " + value);
            }
            settings.computeIfAbsent(value.substring(0, colon), k -> new HashMap<>())
                    .put(value.substring(colon + 1, equals), value.substring(equals + 1));
        }

        private static Path path(String value) {
            return Path.of(value).toAbsolutePath();
        }

        boolean runs(int benchmark) {
            return only.isEmpty() || only.contains(benchmark);
        }
    }

    /** What a run produced: the table (as written to the out file) and why its figures cannot be trusted, if so. */
    record Result(String text, List<String> reasons) {

        boolean measured() {
            return reasons.isEmpty();
        }
    }

    private BenchmarkRun() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        // Whatever happens (Ctrl-C included), no process of ours outlives the harness.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            var all = ProcessHandle.current().descendants().toList();
            all.forEach(ProcessHandle::destroy);
            all.forEach(p -> p.onExit().completeOnTimeout(p, 3, java.util.concurrent.TimeUnit.SECONDS).join());
            all.forEach(ProcessHandle::destroyForcibly);
        }, "stop-children"));
        Result result = run(options);
        if (!result.measured()) {
            System.err.println();
            System.err.println("FAILED: these figures cannot be trusted:");
            result.reasons().forEach(reason -> System.err.println("  " + reason));
        }
        // The AWS SDK and fabric8 leave non-daemon threads; everything we started is stopped.
        System.exit(result.measured() ? 0 : 1);
    }

    /** Runs the benchmarks the options name, in order; one failing never hides the others' figures. */
    static Result run(Options options) throws Exception {
        Path work = Files.createDirectories(options.repo().resolve("benchmarks/target/work"));
        var context = new Context(options.repo(), work, options.size(), options.packaging(), options.leaderboard(),
                options.leaderboardCloud(), options.serviceSettings(), new Table(), new Checks());
        Instant start = Instant.now();
        for (int n = 1; n <= BENCHMARKS; n++) {
            if (options.runs(n)) {
                runOne(n, context);
            }
        }
        String text = "Run " + Instant.now() + ", " + options.size().name().toLowerCase(java.util.Locale.ROOT)
                + (options.packaging() == Packaging.NATIVE ? ", services as native executables" : "")
                + ", " + Duration.between(start, Instant.now()).toSeconds() + " s, load at the end "
                + Machine.loadText() + "\n\n" + context.table().markdown();
        Files.createDirectories(options.out().toAbsolutePath().getParent());
        Files.writeString(options.out(), text);
        System.out.println();
        System.out.println(text);
        return new Result(text, context.checks().reasons());
    }

    private static void runOne(int n, Context context) {
        Instant begin = Instant.now();
        System.out.println("== benchmark " + n + " (load " + Machine.loadText() + ")");
        try {
            switch (n) {
                case 1 -> new SupervisionBenchmark(context).run();
                case 2 -> new MergeBenchmark(context).run();
                case 3 -> new IntakeBenchmark(context).run();
                case 4 -> new FootprintBenchmark(context).run();
                case 5 -> new UploadBenchmark(context).run();
                case 6 -> new RunCostBenchmark(context).run();
                case 7 -> new RouteClaimBenchmark(context).run();
                default -> throw new IllegalStateException("no benchmark " + n);
            }
        } catch (Exception e) {
            e.printStackTrace();
            // The first line: a cause's log tail, if any, is in the stack trace above.
            String why = e.toString().lines().findFirst().orElse("");
            context.table().add(n + "", "benchmark " + n + " failed", why.replace('|', '/'), "", "", false);
            context.checks().fail(Integer.toString(n), "failed: " + why);
        }
        System.out.println("== benchmark " + n + " took " + Duration.between(begin, Instant.now()).toSeconds() + " s");
    }
}
