package org.carla.leaderboard.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.localstack.process.FreePort;
import org.carla.leaderboard.localstack.run.Packaging;
import org.carla.leaderboard.localstack.standin.StandInRoutes;

/**
 * Benchmark 4: pod-runtime's start-up and memory, on a JVM and as its native executable. The command: {@code pod-runtime agent} with no CARLA
 * listening, which logs "waiting at most ... for CARLA" as soon as the role runs. Start-up = from the harness's
 * {@code ProcessBuilder.start()} to the first line on its output; RSS = VmRSS 1 s later (the role waiting, the JVM
 * settled) and VmHWM (the peak). Variants: JDK 17 (the build's) and Temurin 25, default flags and the best flags we
 * found (SerialGC, a small heap, C1 only, and a class-data archive: AppCDS {@code -XX:ArchiveClassesAtExit} on 17, the
 * AOT cache ({@code -XX:AOTMode=record}, then {@code create}) on 25, each made by one training run of the same
 * command), and the static native executable when {@code -Pnative} has built it.
 */
final class FootprintBenchmark {

    private static final Path JDK25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
    /** The small flags: enough for the pair roles; logcopy reads files up to 16 MiB whole and needs a larger heap. */
    private static final List<String> SMALL = List.of("-XX:+UseSerialGC", "-Xmx16m", "-Xms4m", "-Xss256k",
            "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-XX:ReservedCodeCacheSize=8m",
            "-XX:MaxMetaspaceSize=64m");

    /**
     * How long a JVM may take to exit after SIGTERM, or to create an archive: a training run writes its archive as it
     * exits, and one cut short leaves none (on a busy machine that takes far longer than the usual second).
     */
    private static final Duration EXIT_BOUND = Duration.ofMinutes(5);

    private final BenchmarkRun.Context context;

    FootprintBenchmark(BenchmarkRun.Context context) {
        this.context = context;
    }

    /** One launch: milliseconds to the first output line, RSS and peak RSS in MB. */
    record Launch(double startMs, double rssMb, double peakMb) {
    }

    /** One way of running pod-runtime (the command before the role): a row of 4a and of 4b each. */
    record Variant(String name, List<String> command) {

        static Variant jvm(String name, String java, List<String> flags, Path jar) {
            var command = new ArrayList<String>();
            command.add(java);
            command.addAll(flags);
            command.addAll(List.of("-jar", jar.toString()));
            return new Variant(name, List.copyOf(command));
        }
    }

    void run() throws Exception {
        Path dir = Files.createDirectories(context.work().resolve("footprint"));
        String jdk17 = context.java();
        int runs = context.size().pick(1, 3, 7);
        var variants = new ArrayList<Variant>();
        Path jar = context.podRuntimeJar();
        variants.add(Variant.jvm("JDK 17, default flags", jdk17, List.of(), jar));
        Path jsa = dir.resolve("pod-runtime-17.jsa");
        Files.deleteIfExists(jsa);
        train(jdk17, concat(SMALL, List.of("-XX:ArchiveClassesAtExit=" + jsa)), dir);
        // -Xshare:auto would run without a missing archive and measure something else under the variant's name.
        context.checks().that("4a", Files.exists(jsa), "the AppCDS archive " + jsa + " was not created");
        variants.add(Variant.jvm("JDK 17, small flags + AppCDS", jdk17,
                concat(SMALL, List.of("-XX:SharedArchiveFile=" + jsa, "-Xshare:auto")), jar));
        variants.add(Variant.jvm("JDK 17, small flags (no archive)", jdk17, SMALL, jar));
        if (Files.isExecutable(JDK25)) {
            variants.add(Variant.jvm("Temurin 25, default flags", JDK25.toString(), List.of(), jar));
            Path aot = dir.resolve("pod-runtime-25.aot");
            Path aotConfig = dir.resolve("pod-runtime-25.aotconf");
            Files.deleteIfExists(aot);
            Files.deleteIfExists(aotConfig);
            // The two-step workflow (JEP 483): record a training run, then create the cache from it.
            train(JDK25.toString(), concat(SMALL, List.of("-XX:AOTMode=record", "-XX:AOTConfiguration=" + aotConfig)),
                    dir);
            var create = new ArrayList<String>(List.of(JDK25.toString()));
            create.addAll(concat(SMALL, List.of("-XX:AOTMode=create", "-XX:AOTConfiguration=" + aotConfig,
                    "-XX:AOTCache=" + aot, "-jar", context.podRuntimeJar().toString())));
            Process creating = new ProcessBuilder(create).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("aot-create.log").toFile()).start();
            if (!creating.waitFor(EXIT_BOUND.toSeconds(), TimeUnit.SECONDS) || creating.exitValue() != 0) {
                creating.destroyForcibly();
                context.checks().fail("4a", "Temurin 25's AOT cache was not created; see " + dir.resolve("aot-create.log"));
            }
            if (Files.exists(aot)) {
                variants.add(Variant.jvm("Temurin 25, small flags + AOT cache", JDK25.toString(),
                        concat(SMALL, List.of("-XX:AOTCache=" + aot)), jar));
            }
        }
        // The static executable the Job's init copies into every container, when it is built (-Pnative).
        Path executable = Packaging.NATIVE.program(context.repo(), "pod-runtime");
        if (Files.isRegularFile(executable)) {
            variants.add(new Variant("native executable (static, musl)", List.of(executable.toString())));
        } else {
            context.table().add("4a", "pod-runtime start-up to first log line, native executable",
                    "not built (" + Packaging.NATIVE.buildHint() + ")", "", "< 500 ms", null);
        }
        for (Variant variant : variants) {
            var start = new Samples();
            var rss = new Samples();
            var peak = new Samples();
            for (int i = 0; i < runs; i++) {
                Launch launch = launch(variant.command(), dir);
                context.checks().positive("4b", "resident memory of " + variant.name(), launch.rssMb());
                start.add(launch.startMs());
                rss.add(launch.rssMb());
                peak.add(launch.peakMb());
            }
            String name = variant.name();
            context.checks().samples("4a", "launches of " + name, start, runs);
            context.table().add("4a", "pod-runtime start-up to first log line, " + name,
                    "median " + Samples.fmt(start.percentile(50)) + " ms (min " + Samples.fmt(start.min()) + ", max "
                            + Samples.fmt(start.max()) + ", n=" + start.size() + ")",
                    "", "< 500 ms", start.percentile(50) < 500);
            context.table().add("4b", "pod-runtime RSS waiting (peak), " + name,
                    "median " + Samples.fmt(rss.percentile(50)) + " MB (peak " + Samples.fmt(peak.percentile(50))
                            + " MB)", "", "< 64 MB", rss.percentile(50) < 64);
        }
    }

    /** The training run: the same command, ended by SIGTERM once it waits (the JVM writes the archive at exit). */
    private void train(String java, List<String> flags, Path dir) throws Exception {
        Launch launch = launch(Variant.jvm("training", java, flags, context.podRuntimeJar()).command(), dir);
        System.out.println("  training run " + java + " " + flags + ": first line after " + Samples.fmt(launch.startMs())
                + " ms");
    }

    private Launch launch(List<String> command, Path dir) throws Exception {
        var argv = new ArrayList<String>(command);
        argv.add("agent");
        var builder = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true);
        Map<String, String> env = new HashMap<>();
        env.put("WORKER_ID", "1");
        env.put("CARLA_PORT", Integer.toString(FreePort.forALaterBind())); // nobody listens there
        env.put("PARTNER_WAIT", "60");
        env.put("LOGS_DIR", Files.createDirectories(dir.resolve("logs")).toString());
        env.put("TEAM_AGENT", dir.resolve("agent.py").toString());
        // What the role reads before it waits: the Leaderboard version and a routes file of one route.
        env.put("ROUTES", StandInRoutes.write(dir.resolve("routes.xml"), LeaderboardVersion.V2_0,
                StandInRoutes.ids(0, 1)).toString());
        env.put("LEADERBOARD_VERSION", LeaderboardVersion.V2_0.text());
        builder.environment().putAll(env);
        long begin = System.nanoTime();
        Process process = builder.start();
        try {
            var reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            var output = new java.util.concurrent.ConcurrentLinkedDeque<String>();
            CompletableFuture<Long> firstLine = CompletableFuture.supplyAsync(() -> {
                try {
                    String line = reader.readLine();
                    long at = System.nanoTime();
                    if (line == null) {
                        throw new IllegalStateException("pod-runtime wrote nothing");
                    }
                    output.add(line);
                    // Keep draining so the process never blocks on a full pipe; the last lines say why it ended.
                    Thread drain = new Thread(() -> {
                        try {
                            for (String more; (more = reader.readLine()) != null;) {
                                output.add(more);
                                if (output.size() > 20) {
                                    output.removeFirst();
                                }
                            }
                        } catch (java.io.IOException e) {
                            // the process ended
                        }
                    });
                    drain.setDaemon(true);
                    drain.start();
                    return at;
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            long at = firstLine.get(120, TimeUnit.SECONDS);
            Thread.sleep(1000);
            double rss = Machine.rssMb(process.pid());
            double peak = Machine.peakRssMb(process.pid());
            if (!process.isAlive()) {
                // Not waiting for CARLA, so nothing to measure: a role refusing its configuration ends in a second.
                throw new IllegalStateException("pod-runtime's agent role ended (exit " + process.waitFor()
                        + ") before its memory was read; its last lines:\n" + String.join("\n", output));
            }
            return new Launch((at - begin) / 1e6, rss, peak);
        } finally {
            process.destroy(); // SIGTERM: the role stops and the JVM exits (and writes a training archive)
            if (!process.waitFor(EXIT_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        var all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
