package org.carla.leaderboard.podruntime.cli;

import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import jakarta.inject.Inject;

import org.carla.leaderboard.podruntime.ExitCodes;
import org.carla.leaderboard.podruntime.logcopy.Logcopy;
import org.carla.leaderboard.podruntime.logcopy.LogcopySettings;
import org.carla.leaderboard.podruntime.logcopy.LogcopyShutdown;
import org.carla.leaderboard.podruntime.logcopy.RequestMeter;
import org.jboss.logging.Logger;

import picocli.CommandLine.Command;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * {@code pod-runtime logcopy}: the Job's logcopy container (settings from the environment, see
 * {@link LogcopySettings}). Exit 0 when every worker pair is done, the submission was cancelled, or the pairs stopped on
 * a {@code simulation.cancel} logcopy did not write; 2 on a bad configuration, 143 when stopped by SIGTERM first.
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

    @Override
    public Integer call() throws Exception {
        LogcopySettings settings;
        try {
            settings = LogcopySettings.fromEnv(System.getenv());
        } catch (IllegalArgumentException e) {
            LOG.errorf("logcopy: bad configuration, exit %d: %s", ExitCodes.BAD_CONFIGURATION, e.getMessage());
            return ExitCodes.BAD_CONFIGURATION;
        }
        var logcopy = new Logcopy(settings, s3, sqs, new RequestMeter(), Clock.systemUTC());
        var ended = new CountDownLatch(1);
        shutdown.running(logcopy, ended);
        try {
            return logcopy.run() == Logcopy.Ending.STOPPED ? ExitCodes.TERMINATED : ExitCodes.DONE;
        } finally {
            ended.countDown();
        }
    }
}
