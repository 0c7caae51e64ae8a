package org.carla.leaderboard.podruntime.cli;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.carla.leaderboard.domain.ledger.EntryChanges;
import org.carla.leaderboard.domain.ledger.PairPlacement;
import org.carla.leaderboard.domain.ledger.RetryBudget;
import org.carla.leaderboard.domain.ledger.RouteLedgerTable;
import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.podruntime.ExitCodes;
import org.carla.leaderboard.podruntime.ledger.RouteLedger;
import org.carla.leaderboard.podruntime.logcopy.Logcopy;
import org.carla.leaderboard.podruntime.logcopy.LogcopySettings;
import org.carla.leaderboard.podruntime.logcopy.LogcopyShutdown;
import org.carla.leaderboard.podruntime.logcopy.RequestMeter;
import org.jboss.logging.Logger;

import picocli.CommandLine.Command;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * {@code pod-runtime logcopy}: the Job's logcopy container, the pod's one regular container: its exit ends the pod
 * (settings from the environment, see {@link LogcopySettings}). Exit 0 when every worker pair is done, the submission
 * was cancelled, or the pairs stopped on a {@code simulation.cancel} logcopy did not write; 2 on a bad configuration;
 * {@link ExitCodes#RESTART_LIMIT} (3) when the pair containers restarted {@code RESTART_LIMIT} times, on which the
 * Job's podFailurePolicy fails the Job; 143 when stopped by SIGTERM first.
 */
@Command(name = "logcopy", mixinStandardHelpOptions = true,
        description = "Merges the results, writes EvalAI's files, uploads the logs volume and reports progress, every LOGS_PERIOD.")
public class LogcopyCommand implements Callable<Integer> {

    private static final Logger LOG = Logger.getLogger(LogcopyCommand.class);

    @Inject
    S3Client s3;

    @Inject
    SqsClient sqs;

    @Inject
    LogcopyShutdown shutdown;

    /** Made only for a run with a route ledger. */
    @Inject
    Instance<DynamoDbClient> dynamoDb;

    @Override
    public Integer call() throws Exception {
        LogcopySettings settings;
        try {
            settings = LogcopySettings.fromEnv(System.getenv());
        } catch (IllegalArgumentException e) {
            LOG.errorf("logcopy: bad configuration, exit %d: %s", ExitCodes.BAD_CONFIGURATION, e.getMessage());
            return ExitCodes.BAD_CONFIGURATION;
        }
        Clock clock = Clock.systemUTC();
        Optional<Logcopy.Ledger> ledger;
        try {
            ledger = ledger(System.getenv(), settings, clock);
        } catch (IllegalArgumentException e) {
            LOG.errorf("logcopy: bad configuration, exit %d: %s", ExitCodes.BAD_CONFIGURATION, e.getMessage());
            return ExitCodes.BAD_CONFIGURATION;
        }
        var logcopy = new Logcopy(settings, s3, sqs, ledger, new RequestMeter(), clock);
        var ended = new CountDownLatch(1);
        shutdown.running(logcopy, ended);
        try {
            return switch (logcopy.run()) {
                case FINISHED, CANCELLED, UNREQUESTED_CANCEL -> ExitCodes.DONE;
                case RESTART_LIMIT -> ExitCodes.RESTART_LIMIT;
                case STOPPED -> ExitCodes.TERMINATED;
            };
        } finally {
            ended.countDown();
        }
    }

    /**
     * The route ledger of a run with {@code LEDGER_TABLE}: its partition, this pod's name and index in the Job, its
     * node, the claims' lease and the track's retry budget.
     */
    private Optional<Logcopy.Ledger> ledger(Map<String, String> env, LogcopySettings settings, Clock clock) {
        Optional<String> table = PodEnvironment.value(env, PodEnvironment.LEDGER_TABLE);
        if (table.isEmpty()) {
            return Optional.empty();
        }
        String leaderboard = settings.submission().leaderboard();
        String track = PodEnvironment.value(env, PodEnvironment.CHALLENGE_TRACK_CODENAME).orElse("SENSORS");
        String partition = RouteLedgerTable.ledgerPartition(leaderboard, settings.submissionId(), settings.run());
        Duration lease = PodEnvironment.duration(env, PodEnvironment.ROUTE_LEASE).orElse(EntryChanges.DEFAULT_LEASE);
        if (lease.compareTo(settings.period().multipliedBy(3)) < 0) {
            // Renewed once a pass: a lease of fewer than three passes would lapse on one slow pass.
            throw new IllegalArgumentException(PodEnvironment.ROUTE_LEASE + " must be at least three LOGS_PERIODs ("
                    + settings.period().multipliedBy(3) + "), was " + lease);
        }
        var budget = RetryBudget.of(PodEnvironment.integer(env, PodEnvironment.ALLOWED_RESUMES).orElse(1));
        String pod = PodEnvironment.required(env, PodEnvironment.POD_NAME);
        int index = PodEnvironment.integer(env, PodEnvironment.JOB_COMPLETION_INDEX).orElse(0);
        var placement = new PairPlacement(PodEnvironment.value(env, PodEnvironment.NODE_NAME).orElse(null), null);
        var store = new RouteLedger(dynamoDb.get(), table.get(), partition, new EntryChanges(lease, budget, clock),
                clock);
        return Optional.of(new Logcopy.Ledger(store, pod, index, placement, RouteLedgerTable.trackPartition(
                leaderboard, track)));
    }
}
