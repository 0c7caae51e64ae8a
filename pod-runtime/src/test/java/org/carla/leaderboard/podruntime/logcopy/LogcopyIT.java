package org.carla.leaderboard.podruntime.logcopy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
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
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/** The logcopy role against S3Proxy and ElasticMQ of the local stack, with real files in a logs volume. */
class LogcopyIT {

    private static final String BUCKET = "carla-leaderboard-20";
    private static final Duration PERIOD = Duration.ofMillis(300);
    private static final AtomicLong SUBMISSIONS = new AtomicLong(System.currentTimeMillis() % 1_000_000 * 100);

    private static RunningStack stack;
    private static String queueUrl;

    private final CountingRequests requests = new CountingRequests();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final ExecutorService runner = Executors.newSingleThreadExecutor();

    @TempDir
    Path logs;

    @BeforeAll
    static void startStack() {
        stack = LocalStack.builder().components("s3", "sqs").start();
        queueUrl = stack.queueUrl("progress-reports");
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    @AfterEach
    void cleanUp() throws Exception {
        runner.shutdownNow();
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    @Test
    void uploadsOnlyWhatChanged() throws Exception {
        S3Client s3 = s3(stack.endpoints().get("s3"));
        var meter = new RequestMeter();
        String prefix = SUBMISSIONS.incrementAndGet() + "/";
        write("agent/agent1/leaderboard.log", "route 1 started\n");
        write("simulator/simulator-1.log", "CARLA up\n");
        write("containers-status/agent-1.crash0", "");
        Path big = logs.resolve("simulator/carla-core.log");
        Files.write(big, new byte[11 * 1024 * 1024]);
        Files.createSymbolicLink(logs.resolve("agent/agent1/token"), Files.writeString(
                Files.createTempFile("secret", ".txt"), "a service account token"));
        var upload = new LogsUpload(s3, BUCKET, prefix, logs, meter, 6 * 1024 * 1024, 5 * 1024 * 1024);

        var first = upload.uploadChanged();
        assertThat(first.files()).isEqualTo(4);
        assertThat(requests.count("PutObject")).isEqualTo(3);
        assertThat(requests.count("UploadPart")).isEqualTo(3); // 11 MiB in parts of 5 MiB
        assertThat(requests.count("CompleteMultipartUpload")).isEqualTo(1);
        assertThat(meter.bytesUploaded()).isEqualTo(11 * 1024 * 1024 + 16 + 9);

        requests.reset();
        assertThat(upload.uploadChanged().files()).isZero();
        assertThat(requests.total()).as("an unchanged volume costs no request").isZero();

        Files.writeString(logs.resolve("agent/agent1/leaderboard.log"), "route 1 done\n",
                java.nio.file.StandardOpenOption.APPEND);
        Files.setLastModifiedTime(logs.resolve("simulator/simulator-1.log"),
                java.nio.file.attribute.FileTime.fromMillis(0)); // touched, same content
        write("logcopy/logcopy.log", "new\n");
        requests.reset();
        assertThat(upload.uploadChanged().files()).isEqualTo(2);
        assertThat(requests.snapshot()).isEqualTo(Map.of("PutObject", 2));

        assertThat(keys(s3, prefix)).containsExactlyInAnyOrder(prefix + "agent/agent1/leaderboard.log",
                prefix + "simulator/simulator-1.log", prefix + "simulator/carla-core.log",
                prefix + "containers-status/agent-1.crash0", prefix + "logcopy/logcopy.log");
        assertThat(object(s3, prefix + "agent/agent1/leaderboard.log")).isEqualTo("route 1 started\nroute 1 done\n");

        // A restarted logcopy (a resumed run) lists the prefix once and uploads nothing it finds there.
        requests.reset();
        var restarted = new LogsUpload(s3, BUCKET, prefix, logs, new RequestMeter(), 6 * 1024 * 1024,
                5 * 1024 * 1024);
        assertThat(restarted.seedFromRemote()).isEqualTo(5);
        assertThat(restarted.uploadChanged().files()).isZero();
        assertThat(requests.snapshot()).isEqualTo(Map.of("ListObjectsV2", 1));
    }

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
        Thread.sleep(PERIOD.toMillis() * 2);
        assertThat(run.isDone()).as("one agent is not done yet").isFalse();
        write("containers-status/" + StatusFiles.done(Role.AGENT, pairs), "");

        assertThat(run.get(20, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.FINISHED);
        Progress last = lastProgress(settings);
        assertThat(last.routesDone()).isEqualTo(2 * pairs);
        assertThat(last.globalResults()).isTrue();
        String prefix = settings.prefix();
        assertThat(last.ending()).isEqualTo(Progress.Ending.FINISHED);
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
    void theCancelObjectStopsItWithinOnePeriod() throws Exception {
        var settings = settings(2, 4);
        Future<Logcopy.Ending> run = start(settings, s3(stack.endpoints().get("s3")));
        nextProgress(settings);
        agentResults(1, 2, 0);

        long start = System.nanoTime();
        stack.s3().putObject(r -> r.bucket(BUCKET).key(settings.prefix() + "control/cancel"),
                RequestBody.fromString("cancelled"));

        assertThat(run.get(10, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.CANCELLED);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PERIOD.plusSeconds(1));
        assertThat(logs.resolve("containers-status/simulation.cancel")).exists();
        assertThat(object(stack.s3(), settings.prefix() + "containers-status/simulation.cancel")).isEmpty();
        assertThat(logs.resolve("containers-status/logcopy.done")).doesNotExist();
        assertThat(lastProgress(settings).routesDone()).isEqualTo(1);
        assertEverythingUploaded(settings.prefix());
    }

    @Test
    void anS3OutageLosesNothing() throws Exception {
        var relay = new TcpRelay(stack.endpoints().get("s3"));
        closeables.add(relay);
        var settings = settings(1, 2);
        Path log = Files.createTempFile("logcopy", ".log");
        var logFile = LogcopyLogFile.attach(log);
        closeables.add(logFile);
        Future<Logcopy.Ending> run = start(settings, s3(relay.endpoint()));
        nextProgress(settings);

        relay.cut();
        agentResults(1, 2, 0);
        write("simulator/simulator-1.log", "written during the outage\n");
        write("agent/agent1/leaderboard.log", "route 0 done\n");
        Thread.sleep(PERIOD.toMillis() * 5);
        relay.restore();
        agentResults(1, 2, 0, 1);
        write("containers-status/" + StatusFiles.done(Role.SIMULATOR, 1), "");
        write("containers-status/" + StatusFiles.done(Role.AGENT, 1), "");

        assertThat(run.get(60, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.FINISHED);
        assertEverythingUploaded(settings.prefix());
        assertThat(lastProgress(settings).globalResults()).isTrue();
        String text = Files.readString(log);
        assertThat(text.split("S3 unavailable", -1)).as(text).hasSize(2);
        assertThat(text.split("S3 available again", -1)).as(text).hasSize(2);
    }

    @Test
    void anSqsOutageDelaysTheReportsAndLosesNone() throws Exception {
        var relay = new TcpRelay(stack.endpoints().get("sqs"));
        closeables.add(relay);
        var settings = settings(1, 2);
        Path log = Files.createTempFile("logcopy", ".log");
        var logFile = LogcopyLogFile.attach(log);
        closeables.add(logFile);
        var logcopy = new Logcopy(settings, s3(stack.endpoints().get("s3")), sqs(relay.endpoint()),
                new RequestMeter(), Clock.systemUTC());
        closeables.add(logcopy::requestStop);
        Future<Logcopy.Ending> run = runner.submit(logcopy::run);
        nextProgress(settings);

        relay.cut();
        agentResults(1, 2, 0, 1);
        write("containers-status/" + StatusFiles.done(Role.SIMULATOR, 1), "");
        write("containers-status/" + StatusFiles.done(Role.AGENT, 1), "");
        Thread.sleep(PERIOD.toMillis() * 5);
        assertThat(run.isDone()).as("logcopy.done waits for the last report").isFalse();
        assertThat(logs.resolve("containers-status/logcopy.done")).doesNotExist();
        relay.restore();

        assertThat(run.get(60, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.FINISHED);
        Progress last = lastProgress(settings);
        assertThat(last.routesDone()).isEqualTo(2);
        assertThat(last.globalResults()).isTrue();
        String text = Files.readString(log);
        assertThat(text.split("SQS unavailable", -1)).as(text).hasSize(2);
        assertThat(text.split("SQS available again", -1)).as(text).hasSize(2);
    }

    @Test
    void aStopRequestEndsItPromptlyAfterOneLastUpload() throws Exception {
        var settings = settings(1, 2);
        var logcopy = new Logcopy(settings, s3(stack.endpoints().get("s3")), sqs(), new RequestMeter(),
                Clock.systemUTC());
        Future<Logcopy.Ending> run = runner.submit(logcopy::run);
        nextProgress(settings);
        write("agent/agent1/leaderboard.log", "the last line before SIGTERM\n");

        long start = System.nanoTime();
        logcopy.requestStop();

        assertThat(run.get(5, TimeUnit.SECONDS)).isEqualTo(Logcopy.Ending.STOPPED);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(object(stack.s3(), settings.prefix() + "agent/agent1/leaderboard.log"))
                .isEqualTo("the last line before SIGTERM\n");
        assertThat(logs.resolve("containers-status/logcopy.done")).doesNotExist();
    }

    // ---- the logs volume, the loop, what S3 and SQS hold

    private LogcopySettings settings(int pairs, int routes) {
        long pk = SUBMISSIONS.incrementAndGet();
        return new LogcopySettings(logs, logs.resolve(StatusFiles.DIRECTORY), BUCKET,
                new SubmissionRef(pk, 42, "leaderboard-20"), 1, pairs, OptionalInt.of(routes), PERIOD, PERIOD, queueUrl,
                16L * 1024 * 1024, 8 * 1024 * 1024);
    }

    private Future<Logcopy.Ending> start(LogcopySettings settings, S3Client s3) {
        var logcopy = new Logcopy(settings, s3, sqs(), new RequestMeter(), Clock.systemUTC());
        closeables.add(logcopy::requestStop);
        return runner.submit(logcopy::run);
    }

    /** Agent {@code pair}'s checkpoint after the given routes of {@code total}. */
    private void agentResults(int pair, int total, int... routes) {
        var records = new ArrayList<RouteRecord>();
        for (int route : routes) {
            records.add(new RouteRecord(records.size(), "RouteScenario_" + route + "_rep0", "Completed", 0,
                    RouteRecord.emptyInfractions(), new RouteRecord.Scores(100.0, 0.8, 80.0),
                    new RouteRecord.Meta(1000.0, 50.0, 100.0)));
        }
        ResultsJson.write(logs.resolve("agent/agent" + pair + "/agent_results.json"),
                CheckpointFile.started(List.of("carla_camera"), List.of(routes.length, total), records));
    }

    private void write(String relative, String text) throws IOException {
        Path file = logs.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    /** Every regular file of the volume is in S3 with the same content. */
    private void assertEverythingUploaded(String prefix) throws IOException {
        Map<String, String> local = new HashMap<>();
        try (Stream<Path> files = Files.walk(logs)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                local.put(prefix + logs.relativize(file).toString().replace('\\', '/'), Files.readString(file));
            }
        }
        for (var entry : local.entrySet()) {
            assertThat(object(stack.s3(), entry.getKey())).as(entry.getKey()).isEqualTo(entry.getValue());
        }
    }

    private Progress nextProgress(LogcopySettings settings) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            for (Progress progress : receive(settings, 1)) {
                return progress;
            }
        }
        throw new AssertionError("no progress event of " + settings.submissionId());
    }

    /** The last progress event sent (every event of this submission still in the queue is read). */
    private Progress lastProgress(LogcopySettings settings) {
        Progress last = null;
        List<Progress> batch;
        while (!(batch = receive(settings, 10)).isEmpty() || last == null) {
            for (Progress progress : batch) {
                last = progress;
            }
        }
        return last;
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
        events.sort(java.util.Comparator.comparing(Progress::at));
        return events;
    }

    private static String object(S3Client s3, String key) {
        return s3.getObject(r -> r.bucket(BUCKET).key(key), ResponseTransformer.toBytes()).asUtf8String();
    }

    private static List<String> keys(S3Client s3, String prefix) {
        return s3.listObjectsV2Paginator(r -> r.bucket(BUCKET).prefix(prefix)).contents().stream()
                .map(S3Object::key).toList();
    }

    private S3Client s3(URI endpoint) {
        Map<String, String> config = stack.quarkusConfig();
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
        Map<String, String> config = stack.quarkusConfig();
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
