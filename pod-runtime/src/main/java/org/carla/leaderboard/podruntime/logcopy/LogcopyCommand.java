package org.carla.leaderboard.podruntime.logcopy;

import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import picocli.CommandLine.Command;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * {@code pod-runtime logcopy}: the Job's logcopy container (settings from the environment, see
 * {@link LogcopySettings}). Exit 0 when every worker pair is done or the submission was cancelled, 2 on a bad
 * configuration, 143 when stopped by SIGTERM first.
 */
@Command(name = "logcopy", mixinStandardHelpOptions = true,
        description = "Merges the results, writes EvalAI's files, uploads the logs volume and reports progress, every LOGS_PERIOD.")
public class LogcopyCommand implements Callable<Integer> {

    private static final Logger LOG = Logger.getLogger(LogcopyCommand.class);
    /** Kubernetes gives 30 s between SIGTERM and SIGKILL by default; leave room for the last upload. */
    private static final long STOP_GRACE_SECONDS = 20;

    @Inject
    S3Client s3;

    @Inject
    SqsClient sqs;

    @Override
    public Integer call() throws Exception {
        LogcopySettings settings;
        try {
            settings = LogcopySettings.fromEnv(System.getenv());
        } catch (IllegalArgumentException e) {
            LOG.errorf("logcopy: bad configuration, exit 2: %s", e.getMessage());
            return 2;
        }
        try (var logFile = LogcopyLogFile.attach(settings.logsDir().resolve("logcopy").resolve("logcopy.log"))) {
            var meter = new RequestMeter();
            var logcopy = new Logcopy(settings, s3, sqs, meter, Clock.systemUTC());
            var ended = new CountDownLatch(1);
            Thread stopper = new Thread(() -> {
                logcopy.requestStop();
                try {
                    ended.await(STOP_GRACE_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "logcopy-stop");
            Runtime.getRuntime().addShutdownHook(stopper);
            try {
                Logcopy.Ending ending = logcopy.run();
                return ending == Logcopy.Ending.STOPPED ? 143 : 0;
            } finally {
                ended.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(stopper);
                } catch (IllegalStateException e) {
                    // already shutting down: the hook is running
                }
            }
        }
    }
}
