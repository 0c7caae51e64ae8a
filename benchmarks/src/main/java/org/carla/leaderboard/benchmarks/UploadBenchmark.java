package org.carla.leaderboard.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.podruntime.logcopy.Logcopy;
import org.carla.leaderboard.podruntime.logcopy.LogcopySettings;
import org.carla.leaderboard.podruntime.logcopy.RequestMeter;

/**
 * Benchmark 5: logcopy's uploads. The real logcopy loop ({@link Logcopy#run()}, in this JVM) mirrors a 500-file logs
 * folder to S3Proxy and reports to ElasticMQ (the local stack). Its first period uploads everything (every file is
 * new: the cost of a naive full upload); then 5 files change and the next period's requests and bytes are read from
 * logcopy's own {@link RequestMeter}. A period ends with its cancel check ({@code s3.head}), which is how the
 * harness tells the periods apart.
 */
final class UploadBenchmark {

    private static final int CHANGED = 5;
    private static final Duration PERIOD = Duration.ofSeconds(4);

    private final BenchmarkRun.Context context;

    private final int files;

    UploadBenchmark(BenchmarkRun.Context context) {
        this.context = context;
        this.files = context.size().pick(50, 500, 500);
    }

    void run() throws Exception {
        Path root = context.work().resolve("uploads");
        SupervisionBenchmark.deleteRecursively(root);
        Path logs = Files.createDirectories(root.resolve("logs"));
        Path status = Files.createDirectories(logs.resolve("containers-status"));
        var random = new SplittableRandom(10);
        long totalBytes = 0;
        String[] folders = {"agent/agent1", "agent/agent2", "agent/agent3", "agent/agent4", "simulator", "logcopy"};
        Path[] written = new Path[files];
        for (int i = 0; i < files; i++) {
            Path folder = Files.createDirectories(logs.resolve(folders[i % folders.length]));
            byte[] content = new byte[1024 + random.nextInt(63 * 1024)]; // 1-64 KiB, logs and records
            random.nextBytes(content);
            written[i] = folder.resolve("file-" + i + ".log");
            Files.write(written[i], content);
            totalBytes += content.length;
        }
        try (var stack = LocalStack.builder().components("sqs", "s3").workDir(root.resolve("stack")).start()) {
            String bucket = "bench-uploads";
            stack.s3().createBucket(b -> b.bucket(bucket));
            // A changed file may go every period here (in a pod: every 30 s), to measure one period's cost.
            // The seeds' restart limit (2 × 4 resumes + 1); no pair container starts here.
            var settings = new LogcopySettings(logs, status, bucket, new SubmissionRef(5005, 7, "leaderboard-20"), 1,
                    4, 9, OptionalInt.of(20), PERIOD, Duration.ofMinutes(5), stack.queueUrl("progress-reports"), PERIOD,
                    8 * 1024 * 1024, 0, 1);
            var meter = new RequestMeter();
            var logcopy = new Logcopy(settings, stack.s3(), stack.sqs(), meter, java.time.Clock.systemUTC());
            var loop = new Thread(() -> {
                try {
                    logcopy.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "logcopy");
            loop.start();
            try {
                awaitPeriods(meter, 1);
                Map<String, Long> first = meter.snapshot();
                long firstBytes = meter.bytesUploaded();
                long firstOwn = meter.ownBytesUploaded();
                long changedBytes = 0;
                var changed = new java.util.ArrayList<Path>();
                for (int i = 0; i < CHANGED; i++) {
                    Path file = written[i * 97 % files];
                    changed.add(file);
                    Files.writeString(file, "one more line of output " + i + "\n", java.nio.file.StandardOpenOption.APPEND);
                    changedBytes += Files.size(file);
                }
                awaitPeriods(meter, 2);
                Map<String, Long> second = diff(meter.snapshot(), first);
                long secondBytes = meter.bytesUploaded() - firstBytes;
                long firstRequests = first.values().stream().mapToLong(Long::longValue).sum();
                long secondRequests = second.values().stream().mapToLong(Long::longValue).sum();
                long fixed = secondRequests - second.getOrDefault("s3.put", 0L);
                var checks = context.checks();
                checks.count("5a", "files the first period uploaded", first.getOrDefault("s3.put", 0L), files);
                for (Path file : changed) {
                    String key = settings.prefix() + logs.relativize(file);
                    long copied = stack.s3().headObject(b -> b.bucket(bucket).key(key)).contentLength();
                    checks.that("5b", copied == Files.size(file), "the changed " + key + " is " + copied
                            + " B in S3, " + Files.size(file) + " B on the volume: the period did not upload it");
                }
                var table = context.table();
                table.add("5a", "one logcopy period, " + files + "-file logs folder, " + CHANGED
                        + " files changed: requests",
                        secondRequests + " " + second + " (" + CHANGED + " changed files + " + fixed
                                + " fixed: the cancel check; no progress report, nothing new in the results)",
                        "first period (every file new, a full upload): " + firstRequests + " " + first,
                        "changed files + the period's fixed cost",
                        second.getOrDefault("s3.put", 0L) == CHANGED);
                table.add("5b", "same period: bytes uploaded", secondBytes + " B (changed files' size: " + changedBytes
                        + " B)", "full upload: " + firstBytes + " B (the " + files + " files: " + totalBytes
                                + " B, plus the merged results and EvalAI files)",
                        "= the changed files' bytes", secondBytes == changedBytes);
            } finally {
                logcopy.requestStop();
                loop.join(Duration.ofSeconds(30).toMillis());
            }
        }
    }

    /** A period ends with its cancel check, one HEAD after its uploads. */
    private static void awaitPeriods(RequestMeter meter, long count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (meter.requests("s3.head") < count) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("logcopy ended no period #" + count + " within 120 s: " + meter);
            }
            Thread.sleep(5);
        }
    }

    private static Map<String, Long> diff(Map<String, Long> after, Map<String, Long> before) {
        var result = new TreeMap<String, Long>();
        after.forEach((kind, count) -> {
            long delta = count - before.getOrDefault(kind, 0L);
            if (delta != 0) {
                result.put(kind, delta);
            }
        });
        return result;
    }
}
