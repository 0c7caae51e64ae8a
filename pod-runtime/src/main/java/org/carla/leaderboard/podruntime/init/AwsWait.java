package org.carla.leaderboard.podruntime.init;

import java.time.Duration;
import java.util.function.Supplier;

import org.jboss.logging.Logger;

import software.amazon.awssdk.core.exception.SdkException;

/**
 * init asks S3 and DynamoDB until they answer, rather than failing at once: a failed init container is restarted, and each restart
 * counts against the Job's backoffLimit, so an outage at a pod's start would otherwise use up the resumes a track
 * allows. Waits {@code first}, doubling to {@code most}, for as long as {@code patience}; then the last failure.
 */
public final class AwsWait {

    /** How init waits between tries (a test's own clock). */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration pause) throws InterruptedException;
    }

    private static final Logger LOG = Logger.getLogger(AwsWait.class);

    private final Duration first;
    private final Duration most;
    private final Duration patience;
    private final Sleeper sleeper;

    public AwsWait(Duration first, Duration most, Duration patience, Sleeper sleeper) {
        this.first = first;
        this.most = most;
        this.patience = patience;
        this.sleeper = sleeper;
    }

    /** 1 s doubling to 30 s, for 10 minutes: far longer than S3's passing failures, far shorter than a deadline. */
    public static AwsWait standard() {
        return new AwsWait(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(10),
                pause -> Thread.sleep(pause.toMillis()));
    }

    /** The call's answer; its failure once the patience is spent (or the thread interrupted). */
    public <T> T untilAnswered(String what, Supplier<T> call) {
        Duration pause = first;
        Duration waited = Duration.ZERO;
        while (true) {
            try {
                return call.get();
            } catch (SdkException e) {
                if (waited.plus(pause).compareTo(patience) > 0) {
                    throw e;
                }
                LOG.warnf("init: AWS did not answer (%s): %s; again in %d s", what, e.getMessage(), pause.toSeconds());
                try {
                    sleeper.sleep(pause);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                waited = waited.plus(pause);
                pause = pause.multipliedBy(2).compareTo(most) > 0 ? most : pause.multipliedBy(2);
            }
        }
    }
}
