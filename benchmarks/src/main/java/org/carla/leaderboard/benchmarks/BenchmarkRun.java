package org.carla.leaderboard.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Runs the benchmarks of issues 10, 16 and 26 on this machine and prints one table. Started by {@code benchmarks/run.sh} from the
 * repository root (the jars and scripts are found from there).
 *
 * <pre>
 * BenchmarkRun [--only N]... [--quick] [--leaderboard-checkout DIR] [--leaderboard-cloud-checkout DIR] [--out FILE]
 * </pre>
 */
public final class BenchmarkRun {

    /** What every benchmark gets: the repository, the work folder, the options. */
    record Context(Path repo, Path work, boolean quick, Optional<Path> leaderboard, Optional<Path> leaderboardCloud,
            Table table) {

        Path podRuntimeJar() {
            return repo.resolve("pod-runtime/target/quarkus-app/quarkus-run.jar");
        }

        String classPath() {
            return System.getProperty("java.class.path");
        }

        String java() {
            return ProcessHandle.current().info().command().orElse("java");
        }
    }

    private BenchmarkRun() {
    }

    public static void main(String[] args) throws Exception {
        Set<Integer> only = new LinkedHashSet<>();
        boolean quick = false;
        Optional<Path> leaderboard = Optional.empty();
        Optional<Path> cloud = Optional.empty();
        Path out = Path.of("benchmarks/target/results.md");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--only" -> only.add(Integer.parseInt(args[++i]));
                case "--quick" -> quick = true;
                case "--leaderboard-checkout" -> leaderboard = Optional.of(Path.of(args[++i]).toAbsolutePath());
                case "--leaderboard-cloud-checkout" -> cloud = Optional.of(Path.of(args[++i]).toAbsolutePath());
                case "--out" -> out = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: [--only N]... [--quick] [--leaderboard-checkout DIR] "
                        + "[--leaderboard-cloud-checkout DIR] [--out FILE]");
            }
        }
        // Whatever happens (Ctrl-C included), no process of ours outlives the harness.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            var all = ProcessHandle.current().descendants().toList();
            all.forEach(ProcessHandle::destroy);
            all.forEach(p -> p.onExit().completeOnTimeout(p, 3, java.util.concurrent.TimeUnit.SECONDS).join());
            all.forEach(ProcessHandle::destroyForcibly);
        }, "stop-children"));
        Path repo = Path.of("").toAbsolutePath();
        Path work = Files.createDirectories(repo.resolve("benchmarks/target/work"));
        var context = new Context(repo, work, quick, leaderboard, cloud, new Table());
        Instant start = Instant.now();
        for (int n = 1; n <= 7; n++) {
            if (!only.isEmpty() && !only.contains(n)) {
                continue;
            }
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
                    default -> throw new IllegalStateException();
                }
            } catch (Exception e) {
                // One benchmark failing must not hide the others' figures; the row says it failed.
                e.printStackTrace();
                context.table().add(n + "", "benchmark " + n + " failed", e.toString().replace('|', '/'), "", "", false);
            }
            System.out.println("== benchmark " + n + " took " + Duration.between(begin, Instant.now()).toSeconds() + " s");
        }
        String table = context.table().markdown();
        String text = "Run " + Instant.now() + ", " + (quick ? "--quick" : "full") + ", "
                + Duration.between(start, Instant.now()).toSeconds() + " s, load at the end "
                + Machine.loadText() + "\n\n" + table;
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, text);
        System.out.println();
        System.out.println(text);
        System.exit(0); // the AWS SDK and fabric8 leave non-daemon threads; everything we started is stopped
    }
}
