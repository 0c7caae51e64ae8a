package org.carla.leaderboard.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.evalai.EvalAiThrottle;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.carla.leaderboard.localstack.evalai.EvalAiOptions;
import org.carla.leaderboard.localstack.evalai.EvalAiStandIn;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.kubernetes.KubernetesApiServer;
import org.carla.leaderboard.localstack.run.Packaging;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Benchmark 3: intake. ElasticMQ and DynamoDB Local (the local stack), the fabric8 Kubernetes API server (no Job
 * runner: nothing runs the Jobs, the benchmark ends when they exist) and the EvalAI stand-in answering in 20 ms;
 * ingest-service and job-launcher from their packaged jars, or as their native executables ({@code --native}). A burst of EvalAI messages (the stand-in's own message
 * bodies for submissions it knows; 1,000 at full size) is put on {@code submissions} at once (batches of 10 from 4
 * threads); each submission's latency runs from the start of the batch call that carried its message to the ADDED
 * event of its Job on the harness's watch ({@link JobArrivals}). Sustained rate: submissions / (last Job − first
 * publish). Also the services' resident memory, idle and after the run, and their time to ready (benchmark 4's service
 * rows). Before the burst:
 * a warm-up (not measured; every one of its Jobs must appear, or the intake does not reach the API server and the
 * benchmark stops there), then a trickle of single messages every 200 ms (the latency of one submission without a
 * backlog).
 */
final class IntakeBenchmark {

    private static final long PHASE = 1187; // an open track (no qualifier gate)
    private static final Pattern SUBMISSION_PK = Pattern.compile("\"submission_pk\":\"?(\\d+)");
    private static final String JOBS_CREATED = "leaderboard_launcher_jobs_created_total";

    private final BenchmarkRun.Context context;
    private final int warmUp;
    private final int trickle;
    private final int burst;

    IntakeBenchmark(BenchmarkRun.Context context) {
        this.context = context;
        this.warmUp = context.size().pick(5, 50, 50); // first requests of each client path, JIT: not measured
        this.trickle = context.size().pick(3, 20, 50);
        this.burst = context.size().pick(20, 1000, 1000);
    }

    /** The services' resident memory (MB) before and after the intake. */
    private record Memory(double ingestIdle, double launcherIdle, double ingestAfter, double launcherAfter,
            Duration ingestReady, Duration launcherReady) {
    }

    /** The burst: each submission's latency, the rate's span (µs) and the CPU each part spent on it (ms). */
    private record Burst(Samples latencies, long firstPublish, long lastJob, Map<String, Double> cpuMs) {
    }

    void run() throws Exception {
        Path root = context.work().resolve("intake");
        SupervisionBenchmark.deleteRecursively(root);
        var bodies = new ConcurrentHashMap<Long, String>();
        try (var stack = LocalStack.builder().components("sqs", "dynamodb").workDir(root.resolve("stack")).start();
                var api = KubernetesApiServer.start(0);
                var client = api.newClient();
                var evalAi = EvalAiStandIn.start(EvalAiOptions.builder("bench-token", body -> {
                    Matcher m = SUBMISSION_PK.matcher(body);
                    if (!m.find()) {
                        throw new IllegalStateException("no submission_pk in " + body);
                    }
                    bodies.put(Long.parseLong(m.group(1)), body);
                    // EvalAI's minute compressed to 50 ms, which the services budget over too: the intake's own speed
                    // is measured, not EvalAI's throttle (the intake's 12 reads a minute of it allow 0.2 submissions/s).
                }).port(0).throttle(EvalAiThrottle.REQUESTS, Duration.ofMillis(50)).build())) {
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
            for (int i = 1; i <= warmUp + trickle + burst; i++) {
                evalAi.createSubmission(NewSubmission.of(1000 + i, "team-" + i, PHASE, "registry.local/team/agent:" + i));
            }
            evalAi.latency(Duration.ofMillis(20));
            var pks = new ArrayList<>(bodies.keySet());
            pks.sort(null);
            context.checks().count("3", "EvalAI messages made by the stand-in", pks.size(), warmUp + trickle + burst);
            try (var ingest = service("ingest-service", root, ingestConfig);
                    var launcher = service("job-launcher", root, launcherConfig, kubernetesIdentity(api,
                            new ServiceAccount("leaderboard", "job-launcher"), root));
                    var jobs = new JobArrivals(client, KubernetesApiServer.SUBMISSIONS_NAMESPACE)) {
                Thread.sleep(5000); // idle: start-up done, pollers waiting
                double ingestIdle = Machine.rssMb(ingest.pid());
                double launcherIdle = Machine.rssMb(launcher.pid());
                warmUp(stack, jobs, pick(bodies, pks.subList(0, warmUp)), ingest, launcher);
                Samples single = trickle(stack, jobs, bodies, pks.subList(warmUp, warmUp + trickle));
                Map<String, List<Long>> parts = new LinkedHashMap<>();
                parts.put("ingest-service", List.of(ingest.pid()));
                parts.put("job-launcher", List.of(launcher.pid()));
                parts.put("ElasticMQ + DynamoDB Local", stack.processes().stream().map(ProcessHandle::pid).toList());
                parts.put("harness (API server, EvalAI stand-in, watch, sender)",
                        List.of(ProcessHandle.current().pid()));
                Burst result = burst(stack, jobs, pick(bodies, pks.subList(warmUp + trickle, pks.size())), parts);
                Thread.sleep(2000);
                var memory = new Memory(ingestIdle, launcherIdle, Machine.rssMb(ingest.pid()),
                        Machine.rssMb(launcher.pid()), ingest.readyAfter(), launcher.readyAfter());
                rows(single, result, memory);
            }
        }
    }

    private Service service(String name, Path root, Map<String, String> config) throws Exception {
        return service(name, root, config, List.of());
    }

    private Service service(String name, Path root, Map<String, String> config, List<String> identity)
            throws Exception {
        // What the JVM or the native executable sees in its pod: the manifest's memory limit.
        var options = new ArrayList<>(List.of(context.podMemoryLimit(name)));
        options.addAll(identity);
        return context.startService(name, root.resolve(name), config, options);
    }

    /** The ServiceAccount's token file, which fabric8 reads as in a pod (the API server enforces deploy/'s RBAC). */
    private static List<String> kubernetesIdentity(KubernetesApiServer api, ServiceAccount account, Path root) {
        Path token = api.writeToken(account, root.resolve("serviceaccounts").resolve(account.name()).resolve("token"));
        return List.of("-Dkubernetes.auth.tryKubeConfig=false", "-Dkubernetes.auth.serviceAccount.token=" + token);
    }

    /**
     * Every warm-up message must become a Job on the watched API server: if not, nothing after it could be measured.
     * Given up at once when job-launcher counts every warm-up Job created and the API server the benchmark watches
     * holds none of them (the services talk to another one), else after two minutes.
     */
    private void warmUp(RunningStack stack, JobArrivals jobs, Map<Long, String> warming, Service ingest,
            Service launcher) throws Exception {
        publishAll(stack.sqs(), stack.queueUrl("submissions"), warming);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        boolean elsewhere = false;
        while (jobs.count(warming.keySet()) < warming.size() && System.nanoTime() < deadline && !elsewhere) {
            Thread.sleep(200);
            elsewhere = launcher.metric(JOBS_CREATED) >= warming.size() && jobs.submissionsListed().isEmpty();
        }
        long seen = jobs.count(warming.keySet());
        if (seen < warming.size()) {
            var closed = jobs.closedWith();
            throw new IllegalStateException("the intake does not reach the Kubernetes API: " + seen + " of "
                    + warming.size() + " warm-up submissions " + warming.keySet() + " had a Job on the watch of namespace "
                    + KubernetesApiServer.SUBMISSIONS_NAMESPACE + " of the API server the benchmark watches (Jobs listed"
                    + " there now, by submission: " + jobs.submissionsListed() + (closed.isEmpty() ? ""
                            : "; the server closed the watch: " + closed)
                    + "); job-launcher counted " + (long) launcher.metric(JOBS_CREATED) + " Jobs created ("
                    + JOBS_CREATED + "); see " + ingest.log() + " and " + launcher.log());
        }
    }

    /** One message every 200 ms: the latency (ms) of one submission without a backlog. */
    private Samples trickle(RunningStack stack, JobArrivals jobs, Map<Long, String> bodies, List<Long> pks)
            throws Exception {
        var sent = new HashMap<Long, Long>();
        for (Long pk : pks) {
            sent.put(pk, Clock.micros());
            stack.sqs().sendMessage(b -> b.queueUrl(stack.queueUrl("submissions")).messageBody(bodies.get(pk)));
            Thread.sleep(200);
        }
        jobs.await(pks, Duration.ofSeconds(60));
        return latencies(jobs, sent);
    }

    private Burst burst(RunningStack stack, JobArrivals jobs, Map<Long, String> bodies,
            Map<String, List<Long>> parts) throws Exception {
        Map<String, Double> cpuBefore = cpu(parts);
        var published = publishAll(stack.sqs(), stack.queueUrl("submissions"), bodies);
        jobs.await(bodies.keySet(), Duration.ofSeconds(context.size().pick(60, 120, 240)));
        Map<String, Double> cpuAfter = cpu(parts);
        var spent = new LinkedHashMap<String, Double>();
        parts.keySet().forEach(part -> spent.put(part, cpuAfter.get(part) - cpuBefore.get(part)));
        long firstPublish = published.values().stream().mapToLong(Long::longValue).min().orElseThrow();
        long lastJob = published.keySet().stream().map(jobs::at).filter(java.util.Objects::nonNull)
                .mapToLong(Long::longValue).max().orElse(firstPublish);
        return new Burst(latencies(jobs, published), firstPublish, lastJob, spent);
    }

    /** From each message's send to its Job's ADDED event, for the messages whose Job appeared. */
    private static Samples latencies(JobArrivals jobs, Map<Long, Long> sent) {
        var samples = new Samples();
        sent.forEach((pk, at) -> {
            Long job = jobs.at(pk);
            if (job != null) {
                samples.add((job - at) / 1000.0);
            }
        });
        return samples;
    }

    private void rows(Samples single, Burst burst, Memory memory) {
        var table = context.table();
        var checks = context.checks();
        String as = context.packaging() == Packaging.NATIVE ? " (native)" : "";
        checks.samples("3a", "submissions of the trickle with their Job", single, trickle);
        table.add("3a", "intake: EvalAI message → Job in the Kubernetes API, one at a time (every 200 ms)" + as,
                single.summary(" ms") + "; " + single.size() + " of " + trickle + " Jobs", "", "p99 < 500 ms",
                single.size() == trickle && single.percentile(99) < 500);
        Samples latencies = burst.latencies();
        checks.samples("3b", "submissions of the burst with their Job", latencies, this.burst);
        String many = String.format(java.util.Locale.ROOT, "%,d", this.burst);
        table.add("3b", "intake: EvalAI message → Job in the Kubernetes API, " + many + " at once" + as,
                latencies.summary(" ms") + ", mean " + Samples.fmt(latencies.mean()) + " ms; " + latencies.size()
                        + " of " + this.burst + " Jobs", "", "p99 < 500 ms",
                latencies.size() == this.burst && latencies.percentile(99) < 500);
        double seconds = (burst.lastJob() - burst.firstPublish()) / 1e6;
        checks.durationMs("3c", "the burst's span, first publish to last Job", seconds * 1000);
        checks.that("3c", seconds > 0, "the burst took no time: no Job after its first publish");
        double rate = latencies.size() / seconds;
        table.add("3c", "intake: sustained submissions/s (EvalAI stand-in at 20 ms)" + as,
                Samples.fmt(rate) + "/s (" + latencies.size() + " in " + Samples.fmt(seconds) + " s)", "",
                "≥ 100/s on 2 cores", latencies.size() == this.burst && rate >= 100);
        var perSubmission = new StringBuilder();
        double totalCpu = 0;
        for (var part : burst.cpuMs().entrySet()) {
            checks.positive("3d", "CPU time of " + part.getKey(), part.getValue());
            double ms = part.getValue() / Math.max(1, latencies.size());
            totalCpu += ms;
            perSubmission.append(part.getKey()).append(' ').append(Samples.fmt(ms)).append(" ms, ");
        }
        table.add("3d", "intake: CPU time per submission during the burst (load-independent)" + as,
                perSubmission + "total " + Samples.fmt(totalCpu) + " ms → at most " + Samples.fmt(2000 / totalCpu)
                        + "/s on 2 idle cores", "", "(explains 3c)", null);
        serviceMemory("4c", "ingest-service", memory.ingestIdle(), memory.ingestAfter(), memory.ingestReady());
        serviceMemory("4d", "job-launcher", memory.launcherIdle(), memory.launcherAfter(), memory.launcherReady());
    }

    private void serviceMemory(String row, String service, double idle, double after, Duration ready) {
        context.checks().positive(row, service + "'s resident memory, idle", idle);
        context.checks().positive(row, service + "'s resident memory after the intake", after);
        context.table().add(row, service + " RSS (" + context.servicesAs() + ", " + context.podMemoryLimit(service)
                + " as in its pod): idle / after the intake; ready after",
                Samples.fmt(idle) + " MB / " + Samples.fmt(after) + " MB; ready " + ready.toMillis() + " ms after its start",
                "", "< 150 MB", Math.max(idle, after) < 150);
    }

    private static Map<Long, String> pick(Map<Long, String> bodies, List<Long> pks) {
        var picked = new LinkedHashMap<Long, String>();
        pks.forEach(pk -> picked.put(pk, bodies.get(pk)));
        return picked;
    }

    private static Map<String, Double> cpu(Map<String, List<Long>> parts) {
        var result = new HashMap<String, Double>();
        parts.forEach((part, pids) -> result.put(part, pids.stream().mapToDouble(Machine::cpuMs).sum()));
        return result;
    }

    /** Sends every body in batches of 10 from 4 threads; returns when each was sent (epoch µs at the batch's start). */
    private static Map<Long, Long> publishAll(SqsClient sqs, String queueUrl, Map<Long, String> bodies)
            throws Exception {
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
