package org.carla.leaderboard.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.run.Packaging;

import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Benchmark 6: what a running submission costs over a whole run (issue 16), compressed in time. Four agents' logs and
 * four simulators' logs grow at steady rates to tens of MB, 20 routes finish over the run, logcopy (the packaged
 * pod-runtime jar, its own process, every period and interval divided by the scale) mirrors the volume to S3Proxy and
 * reports to ElasticMQ; the seeds' logcopy ({@link SeedsSync}) runs over the same volume in the same run; results-relay
 * relays logcopy's reports to the EvalAI stand-in ({@link RelayedRun}). Reported per real submission-hour: bytes sent ÷
 * bytes written, S3 requests, SQS messages, EvalAI calls; logcopy's CPU time and resident memory over the run; how
 * late each log's copy in S3 was (and, 6g, the same in real time, without compression).
 */
final class RunCostBenchmark {

    /** The example: a log that ends at 50 MB after 4 hours; CARLA's half that. */
    static final double AGENT_LOG_RATE = 3_500;
    static final double SIMULATOR_LOG_RATE = 1_750;
    private static final int PAIRS = 4;
    private static final int ROUTES_PER_AGENT = 5;
    private static final Duration PERIOD = Duration.ofSeconds(10);
    private static final Duration UPLOAD_INTERVAL = Duration.ofSeconds(30);
    private static final Duration HEARTBEAT = Duration.ofMinutes(5);
    private static final long FIVE_MIB = 5L * 1024 * 1024;
    /** 6g's length: a few upload intervals of real time. */
    private static final Duration REAL_TIME = Duration.ofMinutes(3);
    /** How often the harness looks at the logs' copies in S3 (8 HEADs), in compressed time. */
    private static final long PROBE_MILLIS = 500;
    /** logcopy's heap here: its part buffer (8 MiB), a few checkpoints and the SDK's clients fit in it. */
    private static final int HEAP_MB = 64;
    private static final Pattern METER = Pattern.compile(
            "logcopy: finished; \\{(.*)}, (\\d+) bytes uploaded \\((\\d+) of logcopy's own files\\)");

    /** The seeds' logcopy's submission (no record, no relay: its reports are only counted). */
    private static final SubmissionRef SEEDS = new SubmissionRef(6007, 7, "leaderboard-20");

    private final BenchmarkRun.Context context;

    RunCostBenchmark(BenchmarkRun.Context context) {
        this.context = context;
    }

    void run() throws Exception {
        compressedRun();
        if (context.size() == Size.FULL) {
            realTimeLag();
        }
    }

    private void compressedRun() throws Exception {
        // At smoke size, long enough for the agents' logs to pass 5 MiB (6f).
        Duration run = Duration.ofMinutes(context.size().pick(30, 120, 120));
        int scale = context.size().pick(60, 30, 15);
        Path root = context.work().resolve("run-cost");
        SupervisionBenchmark.deleteRecursively(root);
        Path logs = Files.createDirectories(root.resolve("logs"));
        var writers = new ContainerWriters(logs, PAIRS, ROUTES_PER_AGENT, AGENT_LOG_RATE * scale,
                SIMULATOR_LOG_RATE * scale);
        Duration cancelCheck = RelayedRun.CANCEL_CHECK.dividedBy(scale);
        // kubernetes: the relay is active only while it holds its Lease, as in production (no Job runs there).
        try (RunningStack stack = LocalStack.builder().components("sqs", "dynamodb", "s3", "evalai", "kubernetes")
                .workDir(root.resolve("stack")).start();
                var relayed = RelayedRun.start(context, stack, root.resolve("results-relay"), cancelCheck, PAIRS,
                        PAIRS * ROUTES_PER_AGENT)) {
            var ours = relayed.submission();
            String bucket = stack.evaluation().leaderboards().get(ours.leaderboard()).bucket();
            // logcopy reports to a queue of the harness, which counts each report (6c) and hands ours to the relay.
            String queue = stack.sqs().createQueue(r -> r.queueName("bench-run-cost-progress")).queueUrl();
            var sync = new SeedsSync(stack.s3(), stack.sqs(), bucket, queue, logs, SEEDS);
            relayed.podRunning();
            var messages = new ConcurrentHashMap<String, AtomicLong>();
            var lags = new ConcurrentHashMap<String, Double>();
            var rss = new TreeMap<Double, Double>();
            var cpu = new AtomicLong();
            var peak = new double[1];
            long started = System.nanoTime();
            long runNanos = run.toNanos() / scale;
            ScheduledExecutorService timers = Executors.newScheduledThreadPool(4);
            try (Child logcopy = startLogcopy(stack, root, logs, bucket, queue, ours, scale)) {
                long[] last = { started };
                var writing = timers.scheduleAtFixedRate(quietly(() -> {
                    long now = System.nanoTime();
                    double fraction = Math.min(1, (now - started) / (double) runNanos);
                    writers.write((now - last[0]) / 1e9, fraction, now);
                    last[0] = now;
                }), 0, 100, TimeUnit.MILLISECONDS);
                timers.scheduleAtFixedRate(quietly(sync::period), 0, PERIOD.toNanos() / scale,
                        TimeUnit.NANOSECONDS);
                timers.scheduleAtFixedRate(quietly(() -> {
                    long pid = logcopy.pid();
                    double resident = Machine.rssMb(pid);
                    if (!Double.isNaN(resident)) {
                        synchronized (rss) {
                            rss.put((System.nanoTime() - started) / (double) runNanos, resident);
                        }
                        cpu.set((long) Machine.cpuMs(pid));
                        peak[0] = Math.max(peak[0], Machine.peakRssMb(pid));
                    }
                    probeLags(stack, bucket, ours, writers, lags, scale);
                }), 0, PROBE_MILLIS, TimeUnit.MILLISECONDS);
                timers.scheduleWithFixedDelay(quietly(() -> drain(stack, queue, messages, relayed)), 0, 1,
                        TimeUnit.MILLISECONDS);

                while (System.nanoTime() - started < runNanos) {
                    Thread.sleep(200);
                }
                writing.cancel(false);
                synchronized (writers) {
                    writers.write(0, 1, System.nanoTime()); // the last routes; then the containers are done
                }
                writers.finish();
                if (!logcopy.waitFor(Duration.ofMinutes(3))) {
                    throw new IllegalStateException("logcopy did not end within 3 minutes of the last done file");
                }
                timers.shutdownNow();
                timers.awaitTermination(30, TimeUnit.SECONDS);
                drain(stack, queue, messages, relayed);
                String verdict = relayed.jobFinished();
                report(run, scale, writers, sync, logcopy, messages, lags, rss, cpu.get(), peak[0],
                        complete(stack, bucket, ours, writers), relayed, verdict, cancelCheck);
            } finally {
                timers.shutdownNow();
            }
        }
    }

    /**
     * 6g: the lag without compression: logcopy with its defaults (10 s period, 30 s interval) for {@link #REAL_TIME},
     * one agent's log already at 6 MiB and growing at the agent's rate, one CARLA log growing from nothing.
     */
    private void realTimeLag() throws Exception {
        Path root = context.work().resolve("run-cost-real-time");
        SupervisionBenchmark.deleteRecursively(root);
        Path logs = Files.createDirectories(root.resolve("logs"));
        var writers = new ContainerWriters(logs, 1, 1, AGENT_LOG_RATE, SIMULATOR_LOG_RATE);
        String agentLog = LogsLayout.agentLog(1);
        writers.grow(agentLog, 6 * 1024 * 1024, System.nanoTime());
        var submission = new SubmissionRef(6008, 7, "leaderboard-20");
        String bucket = "bench-run-cost-real-time";
        try (RunningStack stack = LocalStack.builder().components("s3", "sqs").workDir(root.resolve("stack")).start()) {
            stack.s3().createBucket(b -> b.bucket(bucket));
            String queue = stack.queueUrl("progress-reports");
            var lags = new ConcurrentHashMap<String, Double>();
            ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
            try (Child logcopy = startLogcopy(stack, root, logs, bucket, queue, submission, 1, 1)) {
                long started = System.nanoTime();
                long[] last = { started };
                var writing = timers.scheduleAtFixedRate(quietly(() -> {
                    long now = System.nanoTime();
                    writers.write((now - last[0]) / 1e9, 0, now);
                    last[0] = now;
                }), 0, 100, TimeUnit.MILLISECONDS);
                timers.scheduleAtFixedRate(quietly(() -> probeLags(stack, bucket, submission, writers, lags, 1)),
                        0, 1, TimeUnit.SECONDS);
                while (System.nanoTime() - started < REAL_TIME.toNanos()) {
                    Thread.sleep(200);
                }
                writing.cancel(false);
                synchronized (writers) {
                    writers.write(0, 1, System.nanoTime());
                }
                writers.finish();
                if (!logcopy.waitFor(Duration.ofMinutes(2))) {
                    throw new IllegalStateException("logcopy did not end within 2 minutes of the last done file");
                }
                timers.shutdownNow();
                context.checks().that("6g", !Double.isNaN(max(lags, "appended")) && !Double.isNaN(max(lags, "small")),
                        "no sample of how late a log's copy was: " + lags.keySet());
                context.table().add("6g", "how late a log's copy in S3 was, in real time (" + REAL_TIME.toMinutes()
                        + " min, logcopy's defaults: 10 s period, 30 s interval; sampled every second)",
                        "a log of 6 MiB and more growing at " + (int) AGENT_LOG_RATE + " B/s: max "
                                + Samples.fmt(max(lags, "appended")) + " s; a CARLA log growing from nothing at "
                                + (int) SIMULATOR_LOG_RATE + " B/s: max " + Samples.fmt(max(lags, "small")) + " s",
                        "one period (10 s) plus its upload time", "≤ 60 s for a log being written",
                        Math.max(max(lags, "appended"), max(lags, "small")) <= 60);
            } finally {
                timers.shutdownNow();
            }
        }
    }

    private Child startLogcopy(RunningStack stack, Path root, Path logs, String bucket, String queue,
            SubmissionRef submission, int scale) {
        return startLogcopy(stack, root, logs, bucket, queue, submission, scale, PAIRS);
    }

    private Child startLogcopy(RunningStack stack, Path root, Path logs, String bucket, String queue,
            SubmissionRef submission, int scale, int pairs) {
        // A bounded heap, so that resident memory shows what logcopy keeps (a leak would grow it), not G1's sizing; a
        // native executable takes -Xmx too (its GC is serial).
        boolean nativeRuntime = context.packaging() == Packaging.NATIVE;
        var argv = new ArrayList<String>(nativeRuntime
                ? List.of(Packaging.NATIVE.program(context.repo(), "pod-runtime").toString(), "-Xmx" + HEAP_MB + "m")
                : List.of(context.java(), "-XX:+UseSerialGC", "-Xmx" + HEAP_MB + "m"));
        // The harness's own bucket and queue, which no role of deploy/aws reaches: logcopy runs as the administrator.
        stack.quarkusConfig(stack.credentials()).forEach((key, value) -> {
            if (key.startsWith("quarkus.s3.") || key.startsWith("quarkus.sqs.")) {
                argv.add("-D" + key + "=" + value);
            }
        });
        if (!nativeRuntime) {
            argv.addAll(List.of("-jar", context.podRuntimeJar().toString()));
        }
        argv.add("logcopy");
        var env = new TreeMap<String, String>();
        env.put("LOGS_DIR", logs.toString());
        env.put("S3_BUCKET", bucket);
        env.put("SUBMISSION_ID", submission.submissionId());
        env.put("TEAM_ID", Long.toString(submission.teamId()));
        env.put("LEADERBOARD", submission.leaderboard());
        env.put("RUN", "1");
        env.put("PROGRESS_QUEUE_URL", queue);
        env.put("WORKER_PAIRS", Integer.toString(pairs));
        env.put("EXPECTED_ROUTES", Integer.toString(pairs == PAIRS ? PAIRS * ROUTES_PER_AGENT : pairs));
        // The seeds' crash budget (2 × 4 resumes + 1); the benchmark's containers write no start file.
        env.put("RESTART_LIMIT", "9");
        env.put("LOGS_PERIOD", seconds(PERIOD, scale));
        env.put("LOGS_UPLOAD_INTERVAL", seconds(UPLOAD_INTERVAL, scale));
        env.put("HEARTBEAT_PERIOD", seconds(HEARTBEAT, scale));
        return Child.start(argv, env, root, root.resolve("logcopy.out"));
    }

    /** How late each log's copy in S3 is now, in real seconds: the age of its oldest byte not in S3. */
    private static void probeLags(RunningStack stack, String bucket, SubmissionRef submission,
            ContainerWriters writers, Map<String, Double> lags, int scale) {
        for (var log : writers.timelines().entrySet()) {
            long copied;
            try {
                copied = stack.s3().headObject(r -> r.bucket(bucket).key(submission.submissionId() + "/" + log.getKey()))
                        .contentLength();
            } catch (NoSuchKeyException e) {
                copied = 0;
            } catch (S3Exception e) {
                if (e.statusCode() != 404) {
                    throw e;
                }
                copied = 0;
            }
            long missingSince = log.getValue().writtenAt(copied);
            double lag = missingSince < 0 ? 0 : (System.nanoTime() - missingSince) / 1e9 * scale;
            lags.merge((copied >= FIVE_MIB ? "appended" : "small") + " " + log.getKey(), lag, Math::max);
        }
    }

    /** Counts the reports on the harness's queue and hands logcopy's to the relay. */
    private static void drain(RunningStack stack, String queue, Map<String, AtomicLong> messages,
            RelayedRun relayed) {
        while (true) {
            var received = stack.sqs().receiveMessage(r -> r.queueUrl(queue).maxNumberOfMessages(10)
                    .waitTimeSeconds(1)).messages();
            if (received.isEmpty()) {
                return;
            }
            for (var message : received) {
                Progress progress = EventCodec.parseProgress(message.body());
                if (progress.submission().equals(relayed.submission())) {
                    relayed.report(progress);
                }
                stack.sqs().deleteMessage(r -> r.queueUrl(queue).receiptHandle(message.receiptHandle()));
                String kind = progress.ending() != null ? "last" : progress.heartbeat() ? "heartbeat" : "news";
                messages.computeIfAbsent(progress.submission().submissionId(), k -> new AtomicLong()).incrementAndGet();
                messages.computeIfAbsent(progress.submission().submissionId() + " " + kind, k -> new AtomicLong())
                        .incrementAndGet();
            }
        }
    }

    /** Whether every log is in S3 whole at the end. */
    private static boolean complete(RunningStack stack, String bucket, SubmissionRef submission,
            ContainerWriters writers) {
        for (var log : writers.timelines().entrySet()) {
            long size = stack.s3().headObject(r -> r.bucket(bucket).key(submission.submissionId() + "/" + log.getKey()))
                    .contentLength();
            if (size != log.getValue().size()) {
                return false;
            }
        }
        return true;
    }

    private void report(Duration run, int scale, ContainerWriters writers, SeedsSync sync, Child logcopy,
            Map<String, AtomicLong> messages, Map<String, Double> lags, TreeMap<Double, Double> rss, long cpuMs,
            double peakMb, boolean complete, RelayedRun relayed, String verdict, Duration cancelCheck)
            throws Exception {
        double hours = run.toSeconds() / 3600.0;
        Matcher meter = METER.matcher(Files.readString(logcopy.log()));
        if (!meter.find() || logcopy.exitCode() != 0) {
            throw new IllegalStateException("logcopy did not finish (exit " + logcopy.exitCode() + "): see "
                    + logcopy.log());
        }
        Map<String, Long> requests = new TreeMap<>();
        for (String entry : meter.group(1).split(", ")) {
            String[] kv = entry.split("=");
            requests.put(kv[0], Long.parseLong(kv[1]));
        }
        long sent = Long.parseLong(meter.group(2));
        long own = Long.parseLong(meter.group(3));
        long written = writers.written();
        long s3 = requests.entrySet().stream().filter(e -> e.getKey().startsWith("s3.")).mapToLong(Map.Entry::getValue)
                .sum();
        String scenario = fmtMb(written) + " written in " + length(run) + " (compressed " + scale + "×: "
                + run.toSeconds() / scale + " s), 4 agent logs at " + (int) AGENT_LOG_RATE + " B/s, 4 CARLA logs at "
                + (int) SIMULATOR_LOG_RATE + " B/s, 20 routes";
        var checks = context.checks();
        checks.positive("6a", "bytes the containers wrote", written);
        checks.positive("6a", "bytes logcopy sent of theirs", sent - own);
        checks.that("6a", complete, "a log's copy in S3 is not whole at the end: the bytes sent fall short");
        checks.positive("6b", "S3 requests", s3);
        var table = context.table();
        double ratio = (sent - own) / (double) written;
        table.add("6a", "bytes sent to S3 ÷ bytes the containers wrote, over a run (" + scenario + ")",
                String.format(Locale.ROOT, "%.3f (%s of %s); plus logcopy's own files %s (%s/h); every log whole in"
                        + " S3 at the end: %s", ratio, fmtMb(sent - own), fmtMb(written), fmtMb(own),
                        fmtMb((long) (own / hours)), complete ? "yes" : "**no**"),
                String.format(Locale.ROOT, "%.1f (%s; grows with the run's length)", sync.bytes() / (double) written,
                        fmtMb(sync.bytes())),
                "≤ 1.5", ratio <= 1.5 && complete);
        table.add("6b", "S3 requests per submission-hour",
                perHour(s3, hours) + " " + perHour(requests, "s3.", hours),
                perHour(sync.s3Requests(), hours) + " " + perHour(sync.requests(), "s3.", hours), "-", null);
        String id = relayed.submission().submissionId();
        long ourMessages = count(messages, id);
        checks.count("6c", "routes logcopy reported (news)", count(messages, id + " news"), 1);
        checks.count("6c", "the seeds' reports (one a period)", count(messages, SEEDS.submissionId()), 1);
        table.add("6c", "SQS messages (progress) per submission-hour",
                perHour(ourMessages, hours) + " (news " + count(messages, id + " news") + ", heartbeats "
                        + count(messages, id + " heartbeat") + ", last " + count(messages, id + " last") + " in the run)",
                perHour(count(messages, SEEDS.submissionId()), hours) + " (one per period)", "-", null);
        reportEvalAi(run, scale, cancelCheck, relayed, verdict, count(messages, SEEDS.submissionId()),
                count(messages, id + " news"));
        double half = quarter(rss, 0.5);
        double end = quarter(rss, 1.0);
        checks.positive("6e", "logcopy's CPU time", cpuMs);
        checks.positive("6e", "logcopy's resident memory at half the run", half);
        checks.positive("6e", "logcopy's resident memory at the end", end);
        table.add("6e", "logcopy's CPU time and resident memory over the run ("
                + (context.packaging() == Packaging.NATIVE ? "native executable" : "packaged jar, JDK 17, -XX:+UseSerialGC")
                + ", -Xmx" + HEAP_MB + "m)",
                String.format(Locale.ROOT, "CPU %.1f s (%.1f s per submission-hour); RSS at 25/50/75/100%% of the run:"
                        + " %s / %s / %s / %s MB, peak %s MB", cpuMs / 1000.0, cpuMs / 1000.0 / hours,
                        Samples.fmt(quarter(rss, 0.25)), Samples.fmt(half), Samples.fmt(quarter(rss, 0.75)),
                        Samples.fmt(end), Samples.fmt(peakMb)),
                "not measured (the CLI's process per period)",
                "RSS flat: the end within 10% of half the run (the first half holds the JIT's warm-up)",
                end <= half * 1.10);
        long passes = requests.getOrDefault("s3.head", 0L);
        checks.count("6f", "logcopy's passes (one cancel check each)", passes, 1);
        checks.that("6f", !Double.isNaN(max(lags, "appended")), "no sample of a log of 5 MiB or more in S3");
        checks.that("6f", !Double.isNaN(max(lags, "small")), "no sample of a log below 5 MiB in S3");
        double pass = run.toSeconds() / (double) Math.max(1, passes);
        double appended = max(lags, "appended");
        double small = max(lags, "small");
        table.add("6f", "how late a log's copy in S3 was (real seconds; sampled every " + (PROBE_MILLIS * scale / 1000.0)
                + " s of real time)", "logs of 5 MiB or more in S3: max " + Samples.fmt(appended)
                        + " s; logs below 5 MiB: max " + Samples.fmt(small) + " s"
                        + "; " + passes + " passes, one every " + Samples.fmt(pass) + " s of real time (the period is "
                        + PERIOD.toSeconds() + " s: the rest is the passes' own time, which compression does not"
                        + " shrink)",
                "one period (10 s) plus its upload time", "≤ 60 s for a log of 5 MiB or more", appended <= 60);
    }

    /**
     * 6d: what EvalAI received about the submission over its life, by kind, beside the seeds' relay (a status read on
     * every progress report — one per period — plus the same updates) and the target (60 an hour plus one per update).
     * Per hour of the submission's life (from its creation on EvalAI to its final status confirmed: the time the cancel
     * check must cover, queue time included), and also per nominal hour of the run.
     */
    private void reportEvalAi(Duration run, int scale, Duration cancelCheck, RelayedRun relayed, String verdict,
            long seedsReports, long news) throws Exception {
        double nominal = run.toSeconds() / 3600.0;
        double hours = relayed.notOver().toMillis() * scale / 3_600_000.0;
        Map<String, Long> calls = relayed.calls();
        long total = calls.values().stream().mapToLong(Long::longValue).sum();
        long partial = calls.getOrDefault("partial", 0L);
        long updates = calls.getOrDefault("running", 0L) + partial + calls.getOrDefault("final", 0L);
        long seeds = seedsReports + updates;
        context.checks().durationMs("6d", "the submission's life", relayed.notOver().toMillis());
        context.checks().that("6d", "FINISHED".equals(verdict), "the run ended " + verdict + ", not FINISHED");
        context.checks().count("6d", "EvalAI calls about the submission", total, 1);
        double target = 60 + updates / hours;
        context.table().add("6d", "EvalAI calls per submission-hour (results-relay, " + context.servicesAs() + ", "
                + context.podMemoryLimit("results-relay") + "; the EvalAI stand-in; cancel check every " + Samples.fmt(cancelCheck.toMillis()
                / 1000.0) + " s: 60 s of real time ÷ " + scale + "; per hour of the submission's life, "
                + Samples.fmt(hours * 60) + " min of real time from its creation to its final status confirmed)",
                perHour(total, hours) + " " + perHour(calls, "", hours) + " (" + total + " calls: " + updates
                        + " updates — running, " + partial + " partial for " + news + " news reports, final — the run"
                        + " ended " + verdict + "; " + calls.getOrDefault("cancelled-list", 0L) + " lists; per"
                        + " nominal hour of the " + length(run) + " run " + perHour(total, nominal)
                        + " against " + Samples.fmt(60 + updates / nominal) + "/h; the relay's own count: "
                        + relayed.relayCounted() + ")",
                perHour(seeds, hours) + " (a status read per progress report, one per period: " + seedsReports
                        + "; plus the same " + updates + " updates)",
                "≤ 60 + 1 per real change (here " + Samples.fmt(target) + "/h)", total / hours <= target);
    }

    private static double quarter(TreeMap<Double, Double> rss, double fraction) {
        synchronized (rss) {
            var entry = rss.floorEntry(fraction);
            return entry == null ? Double.NaN : entry.getValue();
        }
    }

    private static double max(Map<String, Double> lags, String kind) {
        return lags.entrySet().stream().filter(e -> e.getKey().startsWith(kind + " "))
                .mapToDouble(Map.Entry::getValue).max().orElse(Double.NaN);
    }

    private static long count(Map<String, AtomicLong> messages, String key) {
        AtomicLong count = messages.get(key);
        return count == null ? 0 : count.get();
    }

    private static String perHour(long count, double hours) {
        return Samples.fmt(count / hours) + "/h";
    }

    private static String perHour(Map<String, Long> requests, String prefix, double hours) {
        var rates = new TreeMap<String, String>();
        requests.forEach((kind, count) -> {
            if (kind.startsWith(prefix)) {
                rates.put(kind, Samples.fmt(count / hours));
            }
        });
        return rates.toString();
    }

    /** {@code 2 h}, {@code 20 min}. */
    private static String length(Duration run) {
        return run.toMinutesPart() == 0 ? run.toHours() + " h" : run.toMinutes() + " min";
    }

    private static String fmtMb(long bytes) {
        return Samples.fmt(bytes / 1e6) + " MB";
    }

    private static String seconds(Duration duration, int scale) {
        return String.format(Locale.ROOT, "%.3f", duration.toMillis() / 1000.0 / scale);
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    /** A timer task must not die on one failure (a task that throws is never run again). */
    private static Runnable quietly(Step step) {
        return () -> {
            try {
                step.run();
            } catch (Exception e) {
                System.out.println("run-cost: " + e);
            }
        };
    }
}
