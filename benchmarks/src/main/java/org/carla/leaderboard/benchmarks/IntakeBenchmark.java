package org.carla.leaderboard.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.carla.leaderboard.localstack.evalai.EvalAiOptions;
import org.carla.leaderboard.localstack.evalai.EvalAiStandIn;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.kubernetes.KubernetesApiServer;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Benchmark 3: intake. ElasticMQ and DynamoDB Local (the local stack), the fabric8 Kubernetes API server (no Job
 * runner: nothing runs the Jobs, the benchmark ends when they exist) and the EvalAI stand-in answering in 20 ms;
 * ingest-service and job-launcher from their packaged jars. 1,000 EvalAI messages (the stand-in's own message bodies
 * for 1,000 submissions it knows) are put on {@code submissions} at once (batches of 10 from 4 threads); each
 * submission's latency runs from the start of the batch call that carried its message to the ADDED event of its Job
 * on the harness's watch. Sustained rate: submissions / (last Job − first publish). Also the services' resident
 * memory, idle and after the run (benchmark 4's service rows). Before the burst: 50 messages to warm the services up
 * (not measured), then a trickle of single messages every 200 ms (the latency of one submission without a backlog).
 */
final class IntakeBenchmark {

    private static final Pattern JOB_ID = Pattern.compile("-(\\d+)$");
    private static final long PHASE = 1187; // an open track (no qualifier gate)

    private final BenchmarkRun.Context context;

    IntakeBenchmark(BenchmarkRun.Context context) {
        this.context = context;
    }

    void run() throws Exception {
        int count = 1000;
        int trickle = context.quick() ? 20 : 50;
        int warmUp = 50; // first requests of each client path, JIT: not measured
        Path root = context.work().resolve("intake");
        SupervisionBenchmark.deleteRecursively(root);
        var bodies = new ConcurrentHashMap<Long, String>();
        var pkPattern = Pattern.compile("\"submission_pk\":\"?(\\d+)");
        try (var stack = LocalStack.builder().components("sqs", "dynamodb").workDir(root.resolve("stack")).start();
                var api = KubernetesApiServer.start(0);
                var client = api.newClient();
                var evalAi = EvalAiStandIn.start(EvalAiOptions.builder("bench-token", body -> {
                    Matcher m = pkPattern.matcher(body);
                    if (!m.find()) {
                        throw new IllegalStateException("no submission_pk in " + body);
                    }
                    bodies.put(Long.parseLong(m.group(1)), body);
                }).port(0).build())) {
            Map<String, String> config = new HashMap<>(stack.quarkusConfig());
            config.putAll(evalAi.quarkusConfig());
            config.putAll(api.quarkusConfig());
            config.put("quarkus.log.console.level", System.getProperty("benchmarks.service-log-level", "WARN")); // 1,000 INFO lines per service would measure logging
            // Each service signs as its own IAM role (deploy/aws), as in a cluster.
            var ingestConfig = new HashMap<>(config);
            ingestConfig.putAll(stack.quarkusConfig(new ServiceAccount("leaderboard", "ingest-service")));
            var launcherConfig = new HashMap<>(config);
            launcherConfig.putAll(stack.quarkusConfig(new ServiceAccount("leaderboard", "job-launcher")));
            launcherConfig.put("launcher.progress-reports-queue-url", stack.queueUrl("progress-reports"));
            for (int i = 1; i <= count + trickle + warmUp; i++) {
                evalAi.createSubmission(NewSubmission.of(1000 + i, "team-" + i, PHASE, "registry.local/team/agent:" + i));
            }
            evalAi.latency(Duration.ofMillis(20));

            String java = context.java();
            // What the JVM sees in a pod with the manifests' 256 MiB memory limit (ergonomics: SerialGC, 64 MB heap).
            List<String> jvm = List.of("-XX:MaxRAM=256m");
            try (var ingest = Service.start("ingest-service",
                    context.repo().resolve("ingest-service/target/quarkus-app/quarkus-run.jar"),
                    root.resolve("ingest-service"), ingestConfig, java, jvm, Duration.ofSeconds(180));
                    var launcher = Service.start("job-launcher",
                            context.repo().resolve("job-launcher/target/quarkus-app/quarkus-run.jar"),
                            root.resolve("job-launcher"), launcherConfig, java, jvm, Duration.ofSeconds(180))) {
                Thread.sleep(5000); // idle: start-up done, pollers waiting
                double ingestIdle = Machine.rssMb(ingest.pid());
                double launcherIdle = Machine.rssMb(launcher.pid());

                var created = new ConcurrentHashMap<Long, Long>();
                var watch = client.batch().v1().jobs().inNamespace(KubernetesApiServer.SUBMISSIONS_NAMESPACE)
                        .watch(new Watcher<Job>() {
                            @Override
                            public void eventReceived(Action action, Job job) {
                                if (action == Action.ADDED) {
                                    long now = Clock.micros();
                                    Matcher m = JOB_ID.matcher(job.getMetadata().getName());
                                    if (m.find()) {
                                        created.putIfAbsent(Long.parseLong(m.group(1)), now);
                                    }
                                }
                            }

                            @Override
                            public void onClose(WatcherException cause) {
                                // the benchmark closes it
                            }
                        });
                try (watch) {
                    var pks = new ArrayList<>(bodies.keySet());
                    Collections.sort(pks);
                    var warming = new HashMap<Long, String>();
                    pks.subList(0, warmUp).forEach(pk -> warming.put(pk, bodies.get(pk)));
                    publishAll(stack.sqs(), stack.queueUrl("submissions"), warming);
                    long warmDeadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                    while (!created.keySet().containsAll(warming.keySet()) && System.nanoTime() < warmDeadline) {
                        Thread.sleep(50);
                    }
                    pks = new ArrayList<>(pks.subList(warmUp, pks.size()));
                    // Then a trickle, one message every 200 ms: the latency of one submission without a backlog.
                    var trickled = new HashMap<Long, Long>();
                    for (Long pk : pks.subList(0, trickle)) {
                        trickled.put(pk, Clock.micros());
                        stack.sqs().sendMessage(b -> b.queueUrl(stack.queueUrl("submissions")).messageBody(bodies.get(pk)));
                        Thread.sleep(200);
                    }
                    long trickleDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (!created.keySet().containsAll(trickled.keySet()) && System.nanoTime() < trickleDeadline) {
                        Thread.sleep(50);
                    }
                    var single = new Samples();
                    trickled.forEach((pk, sent) -> {
                        Long job = created.get(pk);
                        if (job != null) {
                            single.add((job - sent) / 1000.0);
                        }
                    });
                    var burst = new HashMap<Long, String>();
                    pks.subList(trickle, pks.size()).forEach(pk -> burst.put(pk, bodies.get(pk)));
                    // CPU time of every process taking part, before and after the burst: where the cost goes.
                    Map<String, List<Long>> parts = new java.util.LinkedHashMap<>();
                    parts.put("ingest-service", List.of(ingest.pid()));
                    parts.put("job-launcher", List.of(launcher.pid()));
                    parts.put("ElasticMQ + DynamoDB Local", stack.processes().stream().map(ProcessHandle::pid).toList());
                    parts.put("harness (API server, EvalAI stand-in, watch, sender)", List.of(ProcessHandle.current().pid()));
                    Map<String, Double> cpuBefore = cpu(parts);
                    var published = publishAll(stack.sqs(), stack.queueUrl("submissions"), burst);
                    long firstPublish = published.values().stream().mapToLong(Long::longValue).min().orElseThrow();
                    long deadline = System.nanoTime() + Duration.ofSeconds(context.quick() ? 120 : 240).toNanos();
                    while (created.size() < count + trickle + warmUp && System.nanoTime() < deadline) {
                        Thread.sleep(50);
                    }
                    var latencies = new Samples();
                    long lastJob = 0;
                    for (var entry : created.entrySet()) {
                        if (trickled.containsKey(entry.getKey()) || warming.containsKey(entry.getKey())) {
                            continue;
                        }
                        Long sent = published.get(entry.getKey());
                        if (sent != null) {
                            latencies.add((entry.getValue() - sent) / 1000.0);
                            lastJob = Math.max(lastJob, entry.getValue());
                        }
                    }
                    Map<String, Double> cpuAfter = cpu(parts);
                    double seconds = (lastJob - firstPublish) / 1e6;
                    double rate = latencies.size() / seconds;
                    Thread.sleep(2000);
                    double ingestAfter = Machine.rssMb(ingest.pid());
                    double launcherAfter = Machine.rssMb(launcher.pid());
                    var table = context.table();
                    table.add("3a", "intake: EvalAI message → Job in the Kubernetes API, one at a time (every 200 ms)",
                            single.summary(" ms") + "; " + single.size() + " of " + trickle + " Jobs", "",
                            "p99 < 500 ms", single.size() == trickle && single.percentile(99) < 500);
                    String jobs = latencies.size() + " of " + count + " Jobs";
                    table.add("3b", "intake: EvalAI message → Job in the Kubernetes API, 1,000 at once",
                            latencies.summary(" ms") + ", mean " + Samples.fmt(latencies.mean()) + " ms; " + jobs,
                            "", "p99 < 500 ms", latencies.size() == count && latencies.percentile(99) < 500);
                    table.add("3c", "intake: sustained submissions/s (EvalAI stand-in at 20 ms)",
                            Samples.fmt(rate) + "/s (" + latencies.size() + " in " + Samples.fmt(seconds) + " s)", "",
                            "≥ 100/s on 2 cores", latencies.size() == count && rate >= 100);
                    var perSubmission = new StringBuilder();
                    double totalCpu = 0;
                    for (String part : parts.keySet()) {
                        double ms = (cpuAfter.get(part) - cpuBefore.get(part)) / Math.max(1, latencies.size());
                        totalCpu += ms;
                        perSubmission.append(part).append(' ').append(Samples.fmt(ms)).append(" ms, ");
                    }
                    table.add("3d", "intake: CPU time per submission during the burst (load-independent)",
                            perSubmission + "total " + Samples.fmt(totalCpu) + " ms → at most "
                                    + Samples.fmt(2000 / totalCpu) + "/s on 2 idle cores", "", "(explains 3c)", null);
                    table.add("4c", "ingest-service RSS (JDK 17, -XX:MaxRAM=256m as in its pod): idle / after the intake",
                            Samples.fmt(ingestIdle) + " MB / " + Samples.fmt(ingestAfter) + " MB", "", "< 150 MB",
                            Math.max(ingestIdle, ingestAfter) < 150);
                    table.add("4d", "job-launcher RSS (JDK 17, -XX:MaxRAM=256m as in its pod): idle / after the intake",
                            Samples.fmt(launcherIdle) + " MB / " + Samples.fmt(launcherAfter) + " MB", "", "< 150 MB",
                            Math.max(launcherIdle, launcherAfter) < 150);
                }
            }
        }
    }

    private static Map<String, Double> cpu(Map<String, List<Long>> parts) {
        var result = new HashMap<String, Double>();
        parts.forEach((part, pids) -> result.put(part, pids.stream().mapToDouble(Machine::cpuMs).sum()));
        return result;
    }

    /** Sends every body in batches of 10 from 4 threads; returns when each was sent (epoch µs at the batch's start). */
    private static Map<Long, Long> publishAll(software.amazon.awssdk.services.sqs.SqsClient sqs, String queueUrl,
            Map<Long, String> bodies) throws Exception {
        var pks = new ArrayList<>(bodies.keySet());
        var sent = new ConcurrentHashMap<Long, Long>();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            var futures = new ArrayList<Future<?>>();
            for (int from = 0; from < pks.size(); from += 10) {
                List<Long> batch = pks.subList(from, Math.min(pks.size(), from + 10));
                futures.add(pool.submit(() -> {
                    var entries = new ArrayList<SendMessageBatchRequestEntry>();
                    for (Long pk : batch) {
                        entries.add(SendMessageBatchRequestEntry.builder().id("m" + pk).messageBody(bodies.get(pk))
                                .build());
                    }
                    long now = Clock.micros();
                    var response = sqs.sendMessageBatch(b -> b.queueUrl(queueUrl).entries(entries));
                    if (!response.failed().isEmpty()) {
                        throw new IllegalStateException("SQS refused: " + response.failed());
                    }
                    batch.forEach(pk -> sent.put(pk, now));
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdown();
        }
        return sent;
    }
}
