package org.carla.leaderboard.podruntime.logcopy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/** The logcopy role against S3Proxy and ElasticMQ of the local stack, with real files in a logs volume. */
class LogcopyIT {

    /** The pod's ServiceAccount: logcopy signs as the IAM role it assumes, as in a cluster (IRSA). */
    private static final ServiceAccount WORKER = new ServiceAccount("submissions", "submission-worker");
    /** Leaderboard 2.0's bucket, as deploy/aws names it. */
    private static String bucket;
    private static final Duration PERIOD = Duration.ofMillis(300);
    /** The pair containers' restarts that end the pod, in the cases that do not test it. */
    private static final int RESTART_LIMIT = 4;
    private static final int MIB = 1024 * 1024;
    private static final AtomicLong SUBMISSIONS = new AtomicLong(System.currentTimeMillis() % 1_000_000 * 100);

    private static RunningStack stack;
    private static String queueUrl;

    private final CountingRequests requests = new CountingRequests();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final ExecutorService runner = Executors.newSingleThreadExecutor();
    private final List<Progress> received = new CopyOnWriteArrayList<>();

    @TempDir
    Path temp;

    Path logs;

    @BeforeAll
    static void startStack() {
        // Kept under target/, like a service's test stack: e2e's PermissionsUsedIT reads the gates' decisions there.
        stack = LocalStack.builder().components("s3", "sqs")
                .workDir(Path.of("target/local-stack/logcopy-it-" + System.nanoTime())).start();
        queueUrl = stack.queueUrl("progress-reports");
        bucket = stack.evaluation().leaderboards().get("leaderboard-20").bucket();
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    @org.junit.jupiter.api.BeforeEach
    void volume() throws IOException {
        logs = Files.createDirectories(temp.resolve("logs"));
    }

    @AfterEach
    void cleanUp() throws Exception {
        runner.shutdownNow();
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    // ---- the mirror: what a pass sends

    @Test
    void uploadsOnlyWhatChangedAndNothingThroughALink() throws Exception {
        S3Client s3 = s3(stack.endpoints().get("s3"));
        var meter = new RequestMeter();
        String prefix = SUBMISSIONS.incrementAndGet() + "/";
        write("agent/agent1/leaderboard.log", "route 1 started\n");
        write("simulator/simulator1.log", "CARLA up\n");
        write("containers-status/agent-1.crash0", "");
        Files.write(logs.resolve("simulator/carla-core.log"), new byte[11 * MIB]);
        Files.createSymbolicLink(logs.resolve("agent/agent1/token"),
                Files.writeString(temp.resolve("secret.txt"), "a service account token"));
        LogsUpload upload = upload(s3, prefix, meter, Duration.ZERO);

        var first = upload.uploadChanged(false, Deadline.NONE);
        assertThat(first.files()).isEqualTo(4);
        assertThat(requests.count("PutObject")).isEqualTo(3);
        assertThat(requests.count("UploadPart")).isEqualTo(3); // 11 MiB in parts of 5 MiB
        assertThat(requests.count("CompleteMultipartUpload")).isEqualTo(1);
        assertThat(meter.bytesUploaded()).isEqualTo(11 * MIB + 16 + 9);
        assertThat(upload.notUploaded()).containsExactly("agent/agent1/token");

        requests.reset();
        assertThat(upload.uploadChanged(false, Deadline.NONE).files()).isZero();
        assertThat(requests.total()).as("an unchanged volume costs no request").isZero();

        append("agent/agent1/leaderboard.log", "route 1 done\n");
        Files.setLastModifiedTime(logs.resolve("simulator/simulator1.log"),
                java.nio.file.attribute.FileTime.fromMillis(0)); // touched, same content
        write("logcopy/other.log", "new\n");
        requests.reset();
        assertThat(upload.uploadChanged(false, Deadline.NONE).files()).isEqualTo(2);
        assertThat(requests.snapshot()).isEqualTo(Map.of("PutObject", 2));

        assertThat(keys(s3, prefix)).containsExactlyInAnyOrder(prefix + "agent/agent1/leaderboard.log",
                prefix + "simulator/simulator1.log", prefix + "simulator/carla-core.log",
                prefix + "containers-status/agent-1.crash0", prefix + "logcopy/other.log");
        assertThat(object(s3, prefix + "agent/agent1/leaderboard.log")).isEqualTo("route 1 started\nroute 1 done\n");

        // A restarted logcopy (a resumed run) lists the prefix once and uploads nothing it finds there.
        requests.reset();
        LogsUpload restarted = upload(s3, prefix, new RequestMeter(), Duration.ZERO);
        assertThat(restarted.seedFromRemote()).isEqualTo(5);
        assertThat(restarted.uploadChanged(false, Deadline.NONE).files()).isZero();
        assertThat(requests.snapshot()).isEqualTo(Map.of("ListObjectsV2", 1));
    }

    /** S3Proxy 4.1 (as S3) builds the new object from the old one copied in place plus the new tail. */
    @Test
    void aGrowingLogCostsItsNewBytesAndARewriteIsUploadedWhole() throws Exception {
        S3Client s3 = s3(stack.endpoints().get("s3"));
        var meter = new RequestMeter();
        String prefix = SUBMISSIONS.incrementAndGet() + "/";
        String key = prefix + "simulator/simulator1.log";
        Files.createDirectories(logs.resolve("simulator"));
        Path log = logs.resolve("simulator/simulator1.log");
        Files.write(log, lines(0, 6 * MIB));
        LogsUpload upload = upload(s3, prefix, meter, Duration.ZERO);
        upload.uploadChanged(false, Deadline.NONE);
        long sent = meter.bytesUploaded();
        assertThat(sent).isEqualTo(Files.size(log));

        for (int round = 1; round <= 3; round++) {
            requests.reset();
            Files.write(log, lines(round, 200_000), StandardOpenOption.APPEND);
            upload.uploadChanged(false, Deadline.NONE);

            assertThat(requests.snapshot()).as("round %d", round).isEqualTo(Map.of("CreateMultipartUpload", 1,
                    "UploadPartCopy", 1, "UploadPart", 1, "CompleteMultipartUpload", 1));
            assertThat(meter.bytesUploaded() - sent).as("only the new tail").isEqualTo(200_000);
            sent = meter.bytesUploaded();
            assertThat(objectBytes(s3, key)).isEqualTo(Files.readAllBytes(log));
        }

        // Truncated and written again (not an append): uploaded whole, S3 holds exactly the new content.
        Files.write(log, lines(9, 7 * MIB));
        requests.reset();
        upload.uploadChanged(false, Deadline.NONE);
        assertThat(requests.count("UploadPartCopy")).isZero();
        assertThat(objectBytes(s3, key)).isEqualTo(Files.readAllBytes(log));

        // Same size, other bytes before the end: a rewrite too.
        byte[] content = Files.readAllBytes(log);
        content[content.length - 10] = 'X';
        Files.write(log, content);
        requests.reset();
        upload.uploadChanged(false, Deadline.NONE);
        assertThat(requests.count("UploadPartCopy")).isZero();
        assertThat(objectBytes(s3, key)).isEqualTo(content);

        // Then it grows again: appended again.
        Files.write(log, lines(10, 1000), StandardOpenOption.APPEND);
        requests.reset();
        upload.uploadChanged(false, Deadline.NONE);
        assertThat(requests.count("UploadPartCopy")).isOne();
        assertThat(objectBytes(s3, key)).isEqualTo(Files.readAllBytes(log));

        // Another writer replaced the object in S3 (a second logcopy of the same prefix): the copy in place is
        // refused (412), its upload aborted, and the log uploaded whole; no half upload stays behind to be billed.
        stack.s3().putObject(r -> r.bucket(bucket).key(key), RequestBody.fromString("someone else's log"));
        Files.write(log, lines(11, 1000), StandardOpenOption.APPEND);
        requests.reset();
        upload.uploadChanged(false, Deadline.NONE);
        assertThat(requests.count("AbortMultipartUpload")).isOne();
        assertThat(objectBytes(s3, key)).isEqualTo(Files.readAllBytes(log));
        assertThat(stack.s3().listMultipartUploads(r -> r.bucket(bucket).prefix(prefix)).uploads()).isEmpty();
    }

    @Test
    void aLogBelowFiveMebibytesIsSentAgainOnlyWithinTheBudgetAndEverythingAtAFlush() throws Exception {
        S3Client s3 = s3(stack.endpoints().get("s3"));
        var meter = new RequestMeter();
        String prefix = SUBMISSIONS.incrementAndGet() + "/";
        Files.createDirectories(logs.resolve("agent/agent1"));
        Path log = logs.resolve("agent/agent1/leaderboard.log");
        LogsUpload upload = upload(s3, prefix, meter, Duration.ZERO);

        long written = 0;
        for (int round = 0; round < 200; round++) {
            Files.write(log, lines(round, 20_000), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            written += 20_000;
            upload.uploadChanged(false, Deadline.NONE);
            assertThat(meter.bytesUploaded()).as("round %d", round)
                    .isLessThanOrEqualTo((long) (UploadBudget.RATIO * written) + UploadBudget.ALLOWANCE);
        }
        // Without the budget: 200 whole uploads of a file growing to 4 MB, about 400 MB.
        assertThat(upload.pending()).isTrue();
        assertThat(upload.notUploaded()).containsExactly("agent/agent1/leaderboard.log");

        upload.uploadChanged(true, Deadline.NONE);
        assertThat(upload.pending()).isFalse();
        assertThat(objectBytes(s3, prefix + "agent/agent1/leaderboard.log")).isEqualTo(Files.readAllBytes(log));
    }

    @Test
    void aTenMegabyteLineAndAKeyS3WouldRefuse() throws Exception {
        S3Client s3 = s3(stack.endpoints().get("s3"));
        String prefix = SUBMISSIONS.incrementAndGet() + "/";
        byte[] line = new byte[10 * 1000 * 1000];
        Arrays.fill(line, (byte) 'a');
        Files.createDirectories(logs.resolve("agent/agent1"));
        Files.write(logs.resolve("agent/agent1/leaderboard.log"), line);
        Path deep = logs.resolve("agent/agent1");
        for (int i = 0; i < 5; i++) {
            deep = deep.resolve("d".repeat(200));
        }
        Files.createDirectories(deep);
        Files.writeString(deep.resolve("long.log"), "a key over 1,024 bytes");
        LogsUpload upload = upload(s3, prefix, new RequestMeter(), Duration.ZERO);

        upload.uploadChanged(false, Deadline.NONE);

        assertThat(objectBytes(s3, prefix + "agent/agent1/leaderboard.log")).isEqualTo(line);
        assertThat(upload.notUploaded()).singleElement().asString().startsWith("agent/agent1/ddd").endsWith("...");
        assertThat(upload.pending()).isFalse();
    }

    // ---- the role

    @ParameterizedTest(name = "{0} worker pairs")
    @ValueSource(ints = { 2, 4 })
    void endsWhenEveryPairIsDone(int pairs) throws Exception {
        var settings = settings(pairs, 2 * pairs);
        Future<Logcopy.Ending> run = start(settings, s3(stack.endpoints().get("s3")));

        Progress first = nextProgress(settings);
        assertThat(first.routesDone()).isZero();
        assertThat(first.routesTotal()).isEqualTo(2 * pairs);
        assertThat(first.globalResults()).isFalse();
        assertThat(first.run()).isEqualTo(1);
        assertThat(object(stack.s3(), settings.prefix() + "evalai/stdout.txt")).startsWith("Initializing the submission");

        for (int pair = 1; pair <= pairs; pair++) {
            agentResults(pair, 2, 2 * (pair - 1), 2 * (pair - 1) + 1);
            write("containers-status/" + StatusFiles.done(Role.SIMULATOR, pair), "");
            if (pair < pairs) {
                write("containers-status/" + StatusFiles.done(Role.AGENT, pair), "");
            }
        }
        await().during(PERIOD.multipliedBy(3)).atMost(Duration.ofSeconds(30)).until(() -> !run.isDone());
        write("containers-status/" + StatusFiles.done(Role.AGENT, pairs), "");

        assertThat(run.get(20, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.FINISHED);
        Progress last = lastProgress(settings);
        assertThat(last.routesDone()).isEqualTo(2 * pairs);
        assertThat(last.globalResults()).isTrue();
        assertThat(last.ending()).isEqualTo(Progress.Ending.FINISHED);
        assertThat(last.notUploaded()).isEmpty();
        String prefix = settings.prefix();
        String results = object(stack.s3(), prefix + "evalai/results.json");
        assertThat(last.resultsDigest()).isEqualTo(java.util.HexFormat.of().formatHex(java.security.MessageDigest
                .getInstance("SHA-256").digest(results.getBytes(StandardCharsets.UTF_8))));
        assertThat(EvalAiFiles.snakeCaseAccuracies(results))
                .containsEntry("driving_score", 80.0).containsEntry("route_completion", 100.0);
        assertThat(object(stack.s3(), prefix + "containers-status/logcopy.done")).isEmpty();
        assertThat(logs.resolve("containers-status/logcopy.done")).exists();
        assertEverythingUploaded(prefix);
    }

    @Test
    void reportsOnlyNewsAndAHeartbeatWhenNothingChanges() throws Exception {
        Duration heartbeat = Duration.ofSeconds(2);
        var settings = settings(1, 2, heartbeat);
        start(settings, s3(stack.endpoints().get("s3")));
        Progress first = nextProgress(settings);
        assertThat(first.heartbeat()).isFalse();

        // Ten periods and more with nothing new: heartbeats only, one per heartbeat interval at most.
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            received.addAll(receive(settings, 10));
            return received.stream().filter(Progress::heartbeat).count() >= 2;
        });
        List<Progress> idle = new ArrayList<>(received);
        assertThat(idle).allMatch(Progress::heartbeat);
        for (int i = 1; i < idle.size(); i++) {
            assertThat(Duration.between(idle.get(i - 1).at(), idle.get(i).at())).isGreaterThanOrEqualTo(heartbeat);
        }
        assertThat(Duration.between(first.at(), idle.get(0).at())).isGreaterThanOrEqualTo(heartbeat);

        agentResults(1, 2, 0);
        var news = new ArrayList<Progress>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            receive(settings, 10).stream().filter(progress -> !progress.heartbeat()).forEach(news::add);
            return !news.isEmpty();
        });
        assertThat(news).singleElement().extracting(Progress::routesDone).isEqualTo(1);
    }

    /**
     * A pod that replaces one of its run (its node lost) resumes from the checkpoints in S3, which init downloads: they
     * hold every route the merged results in S3 show (and so EvalAI), though the checkpoint changed again well within
     * the upload interval.
     */
    @Test
    void theCheckpointInS3HoldsEveryRouteTheMergedResultsInS3Show() throws Exception {
        var settings = settings(1, 4, PERIOD, Duration.ofHours(1));
        String prefix = settings.prefix();
        Files.createDirectories(logs.resolve("agent/agent1"));
        agentResults(1, 4); // the evaluator's first write, before any route
        start(settings, s3(stack.endpoints().get("s3")));
        assertThat(nextProgress(settings).routesDone()).isZero();

        int[] driven = { 0, 1, 2 };
        for (int routes = 1; routes <= driven.length; routes++) {
            agentResults(1, 4, Arrays.copyOf(driven, routes));
            int done = routes;
            await().atMost(Duration.ofSeconds(20)).until(() -> receive(settings, 10).stream()
                    .anyMatch(progress -> progress.routesDone() == done));

            assertThat(routesIn(object(stack.s3(), prefix + "agent_results.json"))).as("merged").isEqualTo(done);
            assertThat(routesIn(object(stack.s3(), prefix + "agent/agent1/agent_results.json")))
                    .as("the checkpoint a replaced pod resumes from").isEqualTo(done);
        }
    }

    @Test
    void theCancelObjectStopsItWithinOnePeriod() throws Exception {
        var settings = settings(2, 4);
        Future<Logcopy.Ending> run = start(settings, s3(stack.endpoints().get("s3")));
        nextProgress(settings);
        agentResults(1, 2, 0);

        long start = System.nanoTime();
        stack.s3().putObject(r -> r.bucket(bucket).key(settings.prefix() + "control/cancel"),
                RequestBody.fromString("cancelled"));

        assertThat(run.get(10, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.CANCELLED);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PERIOD.plusSeconds(2));
        assertThat(logs.resolve("containers-status/simulation.cancel")).exists();
        assertThat(object(stack.s3(), settings.prefix() + "containers-status/simulation.cancel")).isEmpty();
        assertThat(logs.resolve("containers-status/logcopy.done")).doesNotExist();
        Progress last = lastProgress(settings);
        assertThat(last.routesDone()).isEqualTo(1);
        assertThat(last.ending()).isEqualTo(Progress.Ending.CANCELLED);
        assertEverythingUploaded(settings.prefix());
    }

    @Test
    void aCancelNobodyRequestedEndsItWithoutLogcopyDone() throws Exception {
        var settings = settings(1, 2);
        Future<Logcopy.Ending> run = start(settings, s3(stack.endpoints().get("s3")));
        nextProgress(settings);
        agentResults(1, 2, 0);

        // The participant's code writes it; without the check logcopy waited for done files until the deadline.
        write("containers-status/simulation.cancel", "");

        assertThat(run.get(20, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.UNREQUESTED_CANCEL);
        Progress last = lastProgress(settings);
        assertThat(last.ending()).isEqualTo(Progress.Ending.UNREQUESTED_CANCEL);
        assertThat(last.routesDone()).isOne();
        assertThat(keys(stack.s3(), settings.prefix())).doesNotContain(
                settings.prefix() + "containers-status/logcopy.done",
                settings.prefix() + "containers-status/simulation.cancel");
        assertThat(logs.resolve("containers-status/logcopy.done")).doesNotExist();
        assertThat(object(stack.s3(), settings.prefix() + "logcopy/logcopy.log"))
                .contains("containers-status/simulation.cancel appeared, but logcopy did not write it");
    }

    /**
     * The crash budget the kubelet's restart counts used to enforce: each pair container writes a start file at each
     * start, and once their restarts (starts but the first, summed) reach {@code RESTART_LIMIT}, logcopy makes its last
     * upload and report and ends the pod. A start file wakes its wait: the pod ends long before the next period.
     */
    @Test
    void pairContainersRestartingAsOftenAsTheLimitAllowsEndThePod() throws Exception {
        Duration period = Duration.ofMinutes(1);
        var settings = settings(2, 4, period, period, period, 3);
        Future<Logcopy.Ending> run = start(settings, s3(stack.endpoints().get("s3")));
        nextProgress(settings);

        for (int pair = 1; pair <= 2; pair++) {
            write("containers-status/" + StatusFiles.start(Role.SIMULATOR, pair, 0), "");
            write("containers-status/" + StatusFiles.start(Role.AGENT, pair, 0), "");
        }
        write("containers-status/agent-1.crash0", "");
        write("containers-status/simulator-1.crash0", "");
        write("containers-status/" + StatusFiles.start(Role.AGENT, 1, 1), "");
        write("containers-status/" + StatusFiles.start(Role.SIMULATOR, 1, 1), "");
        write("agent/agent1/leaderboard.log", "RuntimeError: the agent crashed\n");
        await("two restarts, below the limit of three: logcopy runs on").during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(20)).until(() -> !run.isDone());

        long restarted = System.nanoTime();
        write("containers-status/" + StatusFiles.start(Role.AGENT, 2, 1), "");

        assertThat(run.get(20, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.RESTART_LIMIT);
        assertThat(Duration.ofNanos(System.nanoTime() - restarted)).as("woken by the start file").isLessThan(period);
        Progress last = lastProgress(settings);
        assertThat(last.ending()).isEqualTo(Progress.Ending.RESTART_LIMIT);
        assertThat(last.notUploaded()).isEmpty();
        String prefix = settings.prefix();
        assertThat(logs.resolve("containers-status/logcopy.done")).doesNotExist();
        assertThat(keys(stack.s3(), prefix)).doesNotContain(prefix + "containers-status/logcopy.done")
                .contains(prefix + "containers-status/agent-2.start1", prefix + "agent/agent1/leaderboard.log");
        assertThat(object(stack.s3(), prefix + "logcopy/logcopy.log")).contains("the pair containers restarted 3"
                + " times (agent-1 1 time, simulator-1 1 time, agent-2 1 time), RESTART_LIMIT is 3");
        assertEverythingUploaded(prefix);
    }

    /** When the run's own end and the limit hold in the same pass, the run's end wins: the limit is for a live pod. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "every pair done", "simulation.cancel" })
    void theRunsOwnEndWinsOverTheRestartLimitInTheSamePass(String end) throws Exception {
        var settings = settings(1, 2, PERIOD, PERIOD, PERIOD, 1);
        agentResults(1, 2, 0, 1);
        write("containers-status/" + StatusFiles.start(Role.AGENT, 1, 0), "");
        write("containers-status/" + StatusFiles.start(Role.AGENT, 1, 1), "");
        if (end.equals("every pair done")) {
            write("containers-status/" + StatusFiles.done(Role.SIMULATOR, 1), "");
            write("containers-status/" + StatusFiles.done(Role.AGENT, 1), "");
        } else {
            write("containers-status/" + StatusFiles.SIMULATION_CANCEL, "");
        }

        Logcopy.Ending ending = start(settings, s3(stack.endpoints().get("s3"))).get(20, TimeUnit.SECONDS);

        assertThat(ending).isEqualTo(end.equals("every pair done") ? Logcopy.Ending.FINISHED
                : Logcopy.Ending.UNREQUESTED_CANCEL);
        assertThat(lastProgress(settings).ending().name()).isEqualTo(ending.name());
    }

    @Test
    void hostileFilesInTheVolumeNeitherStopItNorLeakOut() throws Exception {
        var settings = settings(3, 6);
        // Agent 1's checkpoint: a link to a results file outside the volume (6 routes, global results: "finished").
        Path outsideResults = temp.resolve("outside.json");
        ResultsJson.write(outsideResults, agentFile(6, 0, 1, 2, 3, 4, 5));
        Files.createDirectories(logs.resolve("agent/agent1"));
        Files.createSymbolicLink(logs.resolve("agent/agent1/agent_results.json"), outsideResults);
        // Agent 2's: a link to /dev/zero. Agent 3's: 9 MiB of JSON.
        Files.createDirectories(logs.resolve("agent/agent2"));
        Files.createSymbolicLink(logs.resolve("agent/agent2/agent_results.json"), Path.of("/dev/zero"));
        write("agent/agent3/agent_results.json", "[" + "0,".repeat(9 * MIB / 2) + "0]");
        // A pipe where logcopy writes stdout.txt; evalai/ and logcopy.done as links out of the volume.
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.createSymbolicLink(logs.resolve("evalai"), outside);
        Path victim = Files.writeString(temp.resolve("victim.txt"), "precious");
        Files.createDirectories(logs.resolve("containers-status"));
        Files.createSymbolicLink(logs.resolve("containers-status/logcopy.done"), victim);
        Files.createDirectories(logs.resolve("simulator"));
        VolumeFilesTests.mkfifo(logs.resolve("simulator/simulator1.log"));

        Future<Logcopy.Ending> run = start(settings, s3(stack.endpoints().get("s3")));

        Progress first = nextProgress(settings);
        assertThat(first.routesDone()).isZero();
        assertThat(first.globalResults()).isFalse();
        String prefix = settings.prefix();
        assertThat(object(stack.s3(), prefix + "evalai/stdout.txt")).startsWith("Initializing the submission");
        assertThat(keys(stack.s3(), prefix)).doesNotContain(prefix + "agent/agent1/agent_results.json",
                prefix + "agent/agent2/agent_results.json", prefix + "simulator/simulator1.log");
        try (var files = Files.list(outside)) {
            assertThat(files).isEmpty();
        }

        for (int pair = 1; pair <= 3; pair++) {
            write("containers-status/" + StatusFiles.done(Role.SIMULATOR, pair), "");
            write("containers-status/" + StatusFiles.done(Role.AGENT, pair), "");
        }
        assertThat(run.get(30, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.FINISHED);

        Progress last = lastProgress(settings);
        assertThat(last.globalResults()).isFalse();
        assertThat(last.notUploaded()).contains("agent/agent1/agent_results.json", "agent/agent2/agent_results.json",
                "simulator/simulator1.log");
        assertThat(Files.readString(victim)).isEqualTo("precious");
        assertThat(Files.isRegularFile(logs.resolve("containers-status/logcopy.done"), LinkOption.NOFOLLOW_LINKS))
                .isTrue();
        String log = object(stack.s3(), prefix + "logcopy/logcopy.log");
        assertThat(log).contains("agent/agent1/agent_results.json is a symbolic link",
                "agent/agent2/agent_results.json is a symbolic link",
                "agent/agent3/agent_results.json is larger than 8388608 bytes",
                "evalai was a symbolic link: replaced by a real folder");
    }

    @Test
    void anS3OutageLosesNothingAndTheLogNamesNoBucketNorQueue() throws Exception {
        var relay = new TcpRelay(stack.endpoints().get("s3"));
        closeables.add(relay);
        var sqsRelay = new TcpRelay(stack.endpoints().get("sqs"));
        closeables.add(sqsRelay);
        var settings = settings(1, 2);
        var logcopy = new Logcopy(settings, s3(relay.endpoint()), sqs(sqsRelay.endpoint()), new RequestMeter(),
                Clock.systemUTC());
        closeables.add(logcopy::requestStop);
        Future<Logcopy.Ending> run = runner.submit(logcopy::run);
        nextProgress(settings);

        relay.cut();
        sqsRelay.cut();
        agentResults(1, 2, 0);
        write("simulator/simulator1.log", "written during the outage\n");
        write("agent/agent1/leaderboard.log", "route 0 done\n");
        await().atMost(Duration.ofSeconds(30)).until(() -> logVolume().contains("S3 unavailable"));
        relay.restore();
        await().atMost(Duration.ofSeconds(30)).until(() -> logVolume().contains("SQS unavailable"));
        sqsRelay.restore();
        agentResults(1, 2, 0, 1);
        write("containers-status/" + StatusFiles.done(Role.SIMULATOR, 1), "");
        write("containers-status/" + StatusFiles.done(Role.AGENT, 1), "");

        assertThat(run.get(60, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.FINISHED);
        assertEverythingUploaded(settings.prefix());
        assertThat(lastProgress(settings).globalResults()).isTrue();
        String text = object(stack.s3(), settings.prefix() + "logcopy/logcopy.log");
        assertThat(text.split("S3 unavailable", -1)).as(text).hasSize(2);
        assertThat(text.split("S3 available again", -1)).as(text).hasSize(2);
        // The participant is shown this log's tail: no bucket, no queue URL, no account id, no endpoint.
        assertThat(text).doesNotContain(bucket, queueUrl, "000000000000", "127.0.0.1", "http");
    }

    @Test
    void anSqsOutageDelaysTheReportsAndLosesNone() throws Exception {
        var relay = new TcpRelay(stack.endpoints().get("sqs"));
        closeables.add(relay);
        var settings = settings(1, 2);
        var logcopy = new Logcopy(settings, s3(stack.endpoints().get("s3")), sqs(relay.endpoint()),
                new RequestMeter(), Clock.systemUTC());
        closeables.add(logcopy::requestStop);
        Future<Logcopy.Ending> run = runner.submit(logcopy::run);
        nextProgress(settings);

        relay.cut();
        agentResults(1, 2, 0, 1);
        write("containers-status/" + StatusFiles.done(Role.SIMULATOR, 1), "");
        write("containers-status/" + StatusFiles.done(Role.AGENT, 1), "");
        await().atMost(Duration.ofSeconds(30)).until(() -> logVolume().contains("SQS unavailable"));
        await().during(PERIOD.multipliedBy(3)).atMost(Duration.ofSeconds(30))
                .until(() -> !run.isDone() && !Files.exists(logs.resolve("containers-status/logcopy.done")));
        relay.restore();

        assertThat(run.get(60, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.FINISHED);
        Progress last = lastProgress(settings);
        assertThat(last.routesDone()).isEqualTo(2);
        assertThat(last.globalResults()).isTrue();
        String text = logVolume();
        assertThat(text.split("SQS unavailable", -1)).as(text).hasSize(2);
        assertThat(text.split("SQS available again", -1)).as(text).hasSize(2);
    }

    @Test
    void aStopRequestEndsItPromptlyAfterALastUploadAndReport() throws Exception {
        var settings = settings(1, 2);
        var logcopy = new Logcopy(settings, s3(stack.endpoints().get("s3")), sqs(), new RequestMeter(),
                Clock.systemUTC());
        Future<Logcopy.Ending> run = runner.submit(logcopy::run);
        nextProgress(settings);
        write("agent/agent1/leaderboard.log", "the last line before SIGTERM\n");

        long start = System.nanoTime();
        logcopy.requestStop();

        assertThat(run.get(10, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.STOPPED);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Logcopy.STOP_UPLOADS);
        assertThat(object(stack.s3(), settings.prefix() + "agent/agent1/leaderboard.log"))
                .isEqualTo("the last line before SIGTERM\n");
        assertThat(logs.resolve("containers-status/logcopy.done")).doesNotExist();
        Progress last = lastProgress(settings);
        assertThat(last.ending()).isEqualTo(Progress.Ending.STOPPED);
        assertThat(last.notUploaded()).isEmpty();
    }

    @Test
    void aStopDuringAnS3OutageRetriesWithinTheGraceThenSaysWhatIsLeft() throws Exception {
        var relay = new TcpRelay(stack.endpoints().get("s3"));
        closeables.add(relay);
        var settings = settings(1, 2);
        var logcopy = new Logcopy(settings, s3(relay.endpoint()), sqs(), new RequestMeter(), Clock.systemUTC());
        Future<Logcopy.Ending> run = runner.submit(logcopy::run);
        nextProgress(settings);
        relay.cut();
        write("agent/agent1/leaderboard.log", "never uploaded\n");

        long start = System.nanoTime();
        logcopy.requestStop();

        assertThat(run.get(30, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.STOPPED);
        // Retried until the uploads' deadline, and over before the grace (LogcopyShutdown) ends.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Logcopy.STOP_UPLOADS)
                .isLessThan(Duration.ofSeconds(LogcopyShutdown.GRACE_SECONDS));
        Progress last = lastProgress(settings);
        assertThat(last.ending()).isEqualTo(Progress.Ending.STOPPED);
        assertThat(last.notUploaded()).contains("agent/agent1/leaderboard.log", "logcopy/logcopy.log");
        assertThat(logVolume()).contains("not uploaded: ", "agent/agent1/leaderboard.log");
    }

    @Test
    void aStopWhileS3ComesBackUploadsEverything() throws Exception {
        var relay = new TcpRelay(stack.endpoints().get("s3"));
        closeables.add(relay);
        var settings = settings(1, 2);
        var meter = new RequestMeter();
        var logcopy = new Logcopy(settings, s3(relay.endpoint()), sqs(), meter, Clock.systemUTC());
        Future<Logcopy.Ending> run = runner.submit(logcopy::run);
        nextProgress(settings);
        relay.cut();
        write("agent/agent1/leaderboard.log", "uploaded within the grace\n");
        logcopy.requestStop();
        long attempts = meter.requestsStartingWith("s3.");
        await().atMost(Duration.ofSeconds(10)).until(() -> meter.requestsStartingWith("s3.") >= attempts + 2);
        relay.restore();

        assertThat(run.get(30, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.STOPPED);
        assertThat(object(stack.s3(), settings.prefix() + "agent/agent1/leaderboard.log"))
                .isEqualTo("uploaded within the grace\n");
        assertThat(lastProgress(settings).notUploaded()).isEmpty();
    }

    // ---- the logs volume, the loop, what S3 and SQS hold

    private LogsUpload upload(S3Client s3, String prefix, RequestMeter meter, Duration interval) {
        var guard = new GuardedOpen();
        closeables.add(guard);
        return new LogsUpload(new VolumeFiles(logs, guard), new SubmissionObjects(s3, bucket, prefix, meter, 5 * MIB),
                prefix, meter, new UploadBudget(), name -> false, name -> false, interval, Clock.systemUTC());
    }

    private LogcopySettings settings(int pairs, int routes) {
        return settings(pairs, routes, PERIOD);
    }

    private LogcopySettings settings(int pairs, int routes, Duration heartbeat) {
        return settings(pairs, routes, heartbeat, PERIOD);
    }

    private LogcopySettings settings(int pairs, int routes, Duration heartbeat, Duration uploadInterval) {
        return settings(pairs, routes, PERIOD, heartbeat, uploadInterval, RESTART_LIMIT);
    }

    private LogcopySettings settings(int pairs, int routes, Duration period, Duration heartbeat,
            Duration uploadInterval, int restartLimit) {
        long pk = SUBMISSIONS.incrementAndGet();
        return new LogcopySettings(logs, logs.resolve(StatusFiles.DIRECTORY), bucket,
                new SubmissionRef(pk, 42, "leaderboard-20"), 1, pairs, restartLimit, OptionalInt.of(routes), period,
                heartbeat, queueUrl, uploadInterval, 5 * MIB, 0, 1);
    }

    /** The route records of a checkpoint's text. */
    private static int routesIn(String checkpoint) {
        return ResultsJson.parse(checkpoint).checkpoint().records().size();
    }

    private Future<Logcopy.Ending> start(LogcopySettings settings, S3Client s3) {
        var logcopy = new Logcopy(settings, s3, sqs(), new RequestMeter(), Clock.systemUTC());
        closeables.add(logcopy::requestStop);
        return runner.submit(logcopy::run);
    }

    /** Agent {@code pair}'s checkpoint after the given routes of {@code total}. */
    private void agentResults(int pair, int total, int... routes) {
        ResultsJson.write(logs.resolve("agent/agent" + pair + "/agent_results.json"), agentFile(total, routes));
    }

    private static CheckpointFile agentFile(int total, int... routes) {
        var records = new ArrayList<RouteRecord>();
        for (int route : routes) {
            records.add(new RouteRecord(records.size(), "RouteScenario_" + route + "_rep0", "Completed", 0,
                    RouteRecord.emptyInfractions(), new RouteRecord.Scores(100.0, 0.8, 80.0),
                    new RouteRecord.Meta(1000.0, 50.0, 100.0)));
        }
        return CheckpointFile.started(List.of("carla_camera"), List.of(routes.length, total), records);
    }

    /** {@code size} bytes of numbered lines. */
    private static byte[] lines(int round, int size) {
        var text = new StringBuilder(size + 100);
        for (int line = 0; text.length() < size; line++) {
            text.append("round ").append(round).append(" line ").append(line).append('\n');
        }
        return text.substring(0, size).getBytes(StandardCharsets.US_ASCII);
    }

    private void write(String relative, String text) throws IOException {
        Path file = logs.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    private void append(String relative, String text) throws IOException {
        Files.writeString(logs.resolve(relative), text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }

    private String logVolume() throws IOException {
        Path log = logs.resolve("logcopy/logcopy.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** Every regular file of the volume is in S3 with the same content. */
    private void assertEverythingUploaded(String prefix) throws IOException {
        Map<String, String> local = new HashMap<>();
        try (Stream<Path> files = Files.walk(logs)) {
            for (Path file : files.filter(path -> Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)).toList()) {
                local.put(prefix + logs.relativize(file).toString().replace('\\', '/'), Files.readString(file));
            }
        }
        for (var entry : local.entrySet()) {
            assertThat(object(stack.s3(), entry.getKey())).as(entry.getKey()).isEqualTo(entry.getValue());
        }
    }

    private Progress nextProgress(LogcopySettings settings) {
        var found = new ArrayList<Progress>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            found.addAll(receive(settings, 1));
            return !found.isEmpty();
        });
        return found.get(0);
    }

    /** The last progress event sent (every event of this submission still in the queue is read). */
    private Progress lastProgress(LogcopySettings settings) {
        var all = new ArrayList<Progress>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            List<Progress> batch = receive(settings, 10);
            all.addAll(batch);
            return batch.isEmpty() && !all.isEmpty();
        });
        all.sort(Comparator.comparing(Progress::at));
        return all.get(all.size() - 1);
    }

    private List<Progress> receive(LogcopySettings settings, int max) {
        var events = new ArrayList<Progress>();
        List<Message> messages = stack.sqs().receiveMessage(r -> r.queueUrl(queueUrl).maxNumberOfMessages(max)
                .waitTimeSeconds(1)).messages();
        for (Message message : messages) {
            stack.sqs().deleteMessage(r -> r.queueUrl(queueUrl).receiptHandle(message.receiptHandle()));
            Progress progress = EventCodec.parseProgress(message.body());
            if (progress.submission().submissionId().equals(settings.submissionId())) {
                events.add(progress);
            }
        }
        events.sort(Comparator.comparing(Progress::at));
        return events;
    }

    private static String object(S3Client s3, String key) {
        return new String(objectBytes(s3, key), StandardCharsets.UTF_8);
    }

    private static byte[] objectBytes(S3Client s3, String key) {
        try {
            return s3.getObject(r -> r.bucket(bucket).key(key), ResponseTransformer.toBytes()).asByteArray();
        } catch (NoSuchKeyException e) {
            throw new AssertionError("no object " + key, e);
        }
    }

    private static List<String> keys(S3Client s3, String prefix) {
        return s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix)).contents().stream()
                .map(S3Object::key).toList();
    }

    private S3Client s3(URI endpoint) {
        Map<String, String> config = stack.quarkusConfig(WORKER);
        S3Client client = S3Client.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        config.get("quarkus.s3.aws.credentials.static-provider.access-key-id"),
                        config.get("quarkus.s3.aws.credentials.static-provider.secret-access-key"))))
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(1))
                        .socketTimeout(Duration.ofSeconds(10)))
                .overrideConfiguration(o -> o.addExecutionInterceptor(requests))
                .build();
        closeables.add(client);
        return client;
    }

    private SqsClient sqs() {
        return stack.sqs();
    }

    private SqsClient sqs(URI endpoint) {
        Map<String, String> config = stack.quarkusConfig(WORKER);
        SqsClient client = SqsClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        config.get("quarkus.sqs.aws.credentials.static-provider.access-key-id"),
                        config.get("quarkus.sqs.aws.credentials.static-provider.secret-access-key"))))
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(1))
                        .socketTimeout(Duration.ofSeconds(10)))
                .build();
        closeables.add(client);
        return client;
    }
}
