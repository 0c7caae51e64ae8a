package org.carla.leaderboard.localstack.aws;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.localstack.StackContext;
import org.carla.leaderboard.localstack.process.FreePort;
import org.carla.leaderboard.localstack.process.ServerClassPath;
import org.carla.leaderboard.localstack.process.ServerProcess;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * SQS: ElasticMQ, from a generated configuration, with every configured queue and its {@code <name>-dlq} created
 * through the SQS API as a deployment creates them: the redrive policy moves a message to the dead-letter queue on
 * its 201st receive, and both are created with a 14-day retention (ElasticMQ accepts the attribute and ignores it:
 * it never expires a message).
 */
public final class ElasticMqServer extends LocalAwsServer {

    public static final String NAME = "sqs";
    private static final String LAUNCHER = "org.carla.leaderboard.localstack.servers.elasticmq.ElasticMqLauncher";
    /**
     * The shared contract: a message received this many times without being deleted goes to the dead-letter queue.
     * Consumers never dead-letter a transient failure and back off up to a 15-minute visibility timeout, so 200
     * receives ride out about 50 hours of a dependency's outage; the redrive is the safety net, not the rule.
     */
    public static final int MAX_RECEIVE_COUNT = 200;
    /** How long both queues keep a message (SQS's maximum): longer than any outage the receive count rides out. */
    public static final Duration RETENTION = Duration.ofDays(14);
    public static final String DEAD_LETTER_SUFFIX = "-dlq";
    private static final String DATABASE = "messages";
    /** The CloudWatch stand-in's endpoint, beside SQS's: the queues' metrics, served by ElasticMQ's process. */
    public static final String CLOUDWATCH = "cloudwatch";
    /**
     * Where a service reads the queues' CloudWatch metrics from (ops-console); unset in a cluster, where the region's
     * CloudWatch serves them.
     */
    public static final String METRICS_ENDPOINT_KEY = "queue-metrics.endpoint-override";
    /**
     * How often the stand-in measures the queues: SQS publishes once a minute; the local stack every 5 s, so that a
     * test or a local run sees a message's age without waiting a minute.
     */
    public static final Duration METRICS_EVERY = Duration.ofSeconds(5);

    private final Map<String, String> queueUrls = new LinkedHashMap<>();
    private final Map<String, String> deadLetterQueueUrls = new LinkedHashMap<>();
    private SqsClient client;
    private URI cloudWatch;
    private int cloudWatchPort;
    private int cloudWatchServerPort;

    public ElasticMqServer() {
        super(NAME);
    }

    @Override
    List<String> command(StackContext context, int port, int serverPort) throws Exception {
        var config = context.workDir().resolve("elasticmq.conf");
        // Queues and messages in an H2 file, so a killed server comes back with what it held; a stack starts empty.
        // WRITE_DELAY=0: each commit reaches the file before SQS answers, as a message SQS acknowledged is never lost
        // (H2's default delays writes by up to 500 ms: a SIGKILL right after a send lost the message).
        var database = context.workDir().resolve(DATABASE);
        Files.deleteIfExists(database.resolveSibling(DATABASE + ".mv.db"));
        Files.deleteIfExists(database.resolveSibling(DATABASE + ".trace.db"));
        Files.writeString(config, """
                include classpath("application.conf")
                node-address { protocol = "http", host = "127.0.0.1", port = %d, context-path = "" }
                rest-sqs { enabled = true, bind-port = %d, bind-hostname = "127.0.0.1", sqs-limits = strict }
                generate-node-address = false
                aws { region = "%s", accountId = "%s" }
                messages-storage { enabled = true, uri = "jdbc:h2:%s;WRITE_DELAY=0", prune-data-on-init = false }
                """.formatted(port, serverPort, context.region(), context.access().deployment().account(), database),
                StandardCharsets.UTF_8);
        // The stand-in's ports are chosen once: a restart after a kill runs this same command, the same ports. Its
        // gate listens on the public one; queue URLs name the SQS gate's (node-address).
        cloudWatchPort = FreePort.onLoopback();
        cloudWatchServerPort = FreePort.onLoopback();
        cloudWatch = URI.create("http://127.0.0.1:" + cloudWatchPort);
        return ServerProcess.javaCommand(ServerClassPath.of("elasticmq", LAUNCHER),
                List.of("-Dconfig.file=" + config, "-Dlocal-stack.cloudwatch.port=" + cloudWatchServerPort,
                        gatesOption(context),
                        "-Dlocal-stack.cloudwatch.every-seconds=" + METRICS_EVERY.toSeconds(),
                        "-Dlocal-stack.messages-database=jdbc:h2:" + database + ";WRITE_DELAY=0"),
                LAUNCHER, List.of());
    }

    @Override
    List<Map<String, Object>> gates(int port, int serverPort) {
        return List.of(StackAccess.gate("sqs", port, serverPort),
                StackAccess.gate(CLOUDWATCH, cloudWatchPort, cloudWatchServerPort));
    }

    @Override
    void probe(URI endpoint, StackContext context) {
        try (var probe = AwsClients.probe(SqsClient.builder(), endpoint, context.credentials(), context.region())) {
            probe.listQueues();
        }
    }

    /**
     * ElasticMQ answers before it has restored its queues from its database (its {@code ElasticMQServer.start} binds
     * the REST server, then restores): meanwhile {@code GetQueueUrl} says the queue does not exist, and EvalAI's
     * publisher would create it. Ready once every provisioned queue is listed again.
     */
    @Override
    void restored(URI endpoint, StackContext context) {
        try (var probe = AwsClients.probe(SqsClient.builder(), endpoint, context.credentials(), context.region())) {
            var listed = probe.listQueues().queueUrls();
            var missing = new ArrayList<String>(queueUrls.values());
            missing.addAll(deadLetterQueueUrls.values());
            missing.removeAll(listed);
            if (!missing.isEmpty()) {
                throw new IllegalStateException("ElasticMQ has not restored " + missing + " yet");
            }
        }
    }

    @Override
    void provision(URI endpoint, StackContext context) {
        client = AwsClients.client(SqsClient.builder(), endpoint, context.credentials(), context.region());
        for (String queue : context.queues()) {
            String retention = Long.toString(RETENTION.toSeconds());
            String deadLetterUrl = client.createQueue(r -> r.queueName(queue + DEAD_LETTER_SUFFIX)
                    .attributes(Map.of(QueueAttributeName.MESSAGE_RETENTION_PERIOD, retention))).queueUrl();
            String deadLetterArn = client.getQueueAttributes(r -> r.queueUrl(deadLetterUrl)
                    .attributeNames(QueueAttributeName.QUEUE_ARN)).attributes().get(QueueAttributeName.QUEUE_ARN);
            String redrivePolicy = "{\"deadLetterTargetArn\":\"" + deadLetterArn + "\",\"maxReceiveCount\":\""
                    + MAX_RECEIVE_COUNT + "\"}";
            String url = client.createQueue(r -> r.queueName(queue)
                    .attributes(Map.of(QueueAttributeName.REDRIVE_POLICY, redrivePolicy,
                            QueueAttributeName.MESSAGE_RETENTION_PERIOD, retention))).queueUrl();
            queueUrls.put(queue, url);
            deadLetterQueueUrls.put(queue, deadLetterUrl);
        }
    }

    @Override
    String quarkusService() {
        return "sqs";
    }

    @Override
    public Map<String, URI> endpoints() {
        var endpoints = new LinkedHashMap<>(super.endpoints());
        if (!endpoints.isEmpty()) {
            endpoints.put(CLOUDWATCH, cloudWatch);
        }
        return endpoints;
    }

    @Override
    Map<String, String> extraQuarkusConfig() {
        var config = new LinkedHashMap<String, String>();
        config.put(METRICS_ENDPOINT_KEY, cloudWatch.toString());
        queueUrls.forEach((queue, url) -> {
            config.put("queues." + queue + ".url", url);
            config.put("queues." + queue + ".dead-letter-url", deadLetterQueueUrls.get(queue));
        });
        return config;
    }

    public SqsClient client() {
        if (client == null) {
            throw new IllegalStateException("sqs is not running");
        }
        return client;
    }

    public String queueUrl(String queue) {
        return known(queueUrls, queue);
    }

    public String deadLetterQueueUrl(String queue) {
        return known(deadLetterQueueUrls, queue);
    }

    private String known(Map<String, String> urls, String queue) {
        var url = urls.get(queue);
        if (url == null) {
            throw new IllegalArgumentException("no queue '" + queue + "' in the stack; its queues: " + urls.keySet());
        }
        return url;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        super.close();
    }

    /**
     * ElasticMQ's own stop waits up to a minute for the requests in flight ({@code ServerBinding.terminate(1 minute)}
     * in its {@code TheSQSRestServerBuilder}): a client's long poll holds it for up to 20 s. Every message it accepted
     * is already committed to its store (H2, {@code WRITE_DELAY=0}), so the stack stops it after 3 s.
     */
    @Override
    protected Duration stopGrace() {
        return Duration.ofSeconds(3);
    }
}
