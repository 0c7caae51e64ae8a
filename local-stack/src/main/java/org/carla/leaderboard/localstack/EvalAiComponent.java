package org.carla.leaderboard.localstack;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.carla.leaderboard.domain.evalai.EvalAiThrottle;
import org.carla.leaderboard.localstack.aws.AwsClients;
import org.carla.leaderboard.localstack.aws.ElasticMqServer;
import org.carla.leaderboard.localstack.evalai.EvalAiOptions;
import org.carla.leaderboard.localstack.evalai.EvalAiStandIn;
import org.carla.leaderboard.localstack.evalai.LeaderboardSchema;
import org.carla.leaderboard.localstack.evalai.SqsSubmissionPublisher;
import org.jboss.logging.Logger;

import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The {@code evalai} component: the EvalAI stand-in, hosting the configured phases, publishing EvalAI's messages on
 * the stack's {@code submissions} queue as EvalAI does with a challenge's host queue (by name, with the host's keys:
 * the access key of the IAM user deploy/aws creates for it, output {@value #QUEUE_USER_OUTPUT}), with a host token
 * drawn at random for each stack.
 */
public final class EvalAiComponent implements StackComponent {

    public static final String NAME = "evalai";
    /**
     * The period the stand-in throttles each user over (EvalAI's minute, {@link EvalAiThrottle}, by default); a run
     * compressed in time shortens it with its other periods, and the services budget their calls over the same
     * ({@code evalai.budget.per} in the stack's configuration).
     */
    public static final String THROTTLE_PERIOD = "local-stack.evalai.throttle-period";
    static final String QUEUE = "submissions";
    /** The template's output naming the IAM user whose keys are entered in EvalAI for the challenge's queue. */
    public static final String QUEUE_USER_OUTPUT = "EvalAiQueueUserName";

    private static final Logger LOG = Logger.getLogger(EvalAiComponent.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** In the component's folder at close: every call the stand-in received, in order, for whoever reads a run. */
    public static final String CALLS_FILE = "calls.txt";

    private SqsClient sqs;
    private EvalAiStandIn standIn;
    private Path workDir;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<String> requires() {
        return Set.of(ElasticMqServer.NAME);
    }

    @Override
    public void start(StackContext context) {
        workDir = context.workDir();
        if (!context.queues().contains(QUEUE)) {
            throw new IllegalStateException("the EvalAI stand-in publishes on the '" + QUEUE
                    + "' queue, which the stack does not create (queues: " + context.queues() + ")");
        }
        String user = context.access().deployment().outputs().get(QUEUE_USER_OUTPUT);
        if (user == null) {
            throw new IllegalStateException("deploy/aws/leaderboard-backend.yaml has no output " + QUEUE_USER_OUTPUT
                    + ": EvalAI has no keys to send to the queue with");
        }
        sqs = AwsClients.client(SqsClient.builder(), context.endpoint(ElasticMqServer.NAME),
                context.access().user(user), context.region());
        var token = new byte[24];
        RANDOM.nextBytes(token);
        var options = EvalAiOptions.builder(HexFormat.of().formatHex(token), new SqsSubmissionPublisher(sqs, QUEUE))
                .port(context.port()).throttle(EvalAiThrottle.REQUESTS, Optional.ofNullable(context.settings()
                        .get(THROTTLE_PERIOD)).map(Duration::parse).orElse(EvalAiThrottle.PERIOD));
        // The phases the stack's leaderboards evaluate, each with the CARLA leaderboard's metrics.
        context.evaluation().phases().keySet().stream().sorted()
                .forEach(phase -> options.phase(Long.parseLong(phase), LeaderboardSchema.carlaLeaderboard()));
        standIn = EvalAiStandIn.start(options.build());
    }

    /** The stand-in's host-side controls and recorded calls. */
    public EvalAiStandIn standIn() {
        if (standIn == null) {
            throw new IllegalStateException("evalai is not running");
        }
        return standIn;
    }

    @Override
    public Map<String, URI> endpoints() {
        return standIn == null ? Map.of() : Map.of(NAME, URI.create(standIn.url()));
    }

    @Override
    public Map<String, String> quarkusConfig() {
        return standIn == null ? Map.of() : standIn.quarkusConfig();
    }

    @Override
    public List<ProcessHandle> processes() {
        return List.of(); // an HTTP server in this JVM
    }

    @Override
    public void close() {
        if (standIn != null) {
            standIn.close();
            keepCalls();
        }
        if (sqs != null) {
            sqs.close();
        }
    }

    /**
     * One line a call: when it came, method, path and query, the status answered, the body if any, with its backslashes,
     * line feeds and carriage returns escaped ({@code \\}, {@code \n}, {@code \r}) so that any body keeps to its line.
     */
    private void keepCalls() {
        var lines = standIn.calls().stream().map(call -> call.time() + " " + call.method() + " " + oneLine(call.path())
                + " " + call.status() + (call.body() == null || call.body().isEmpty() ? "" : " " + oneLine(call.body())))
                .toList();
        try {
            Files.write(workDir.resolve(CALLS_FILE), lines);
        } catch (IOException e) {
            LOG.warnf("the EvalAI stand-in's calls not kept in %s: %s", workDir, e.getMessage());
        }
    }

    private static String oneLine(String text) {
        return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r");
    }
}
