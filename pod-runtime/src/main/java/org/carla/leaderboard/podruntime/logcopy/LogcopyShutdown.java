package org.carla.leaderboard.podruntime.logcopy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.quarkus.runtime.ShutdownEvent;

/**
 * SIGTERM (Kubernetes stopping the pod) while logcopy runs: asks the loop to stop and holds Quarkus's shutdown until
 * the loop's last upload and report are over (retried until {@link Logcopy#STOP_UPLOADS} and
 * {@link Logcopy#STOP_REPORT} after the request, within this grace), so the S3 and SQS clients are not closed under it.
 */
@ApplicationScoped
public class LogcopyShutdown {

    /** Kubernetes gives 30 s between SIGTERM and SIGKILL by default; leave room for the JVM to exit. */
    static final long GRACE_SECONDS = 20;

    private volatile Logcopy running;
    private volatile CountDownLatch ended;

    public void running(Logcopy logcopy, CountDownLatch loopEnded) {
        this.ended = loopEnded;
        this.running = logcopy;
    }

    void onStop(@Observes ShutdownEvent event) throws InterruptedException {
        Logcopy logcopy = running;
        if (logcopy != null) {
            logcopy.requestStop();
            ended.await(GRACE_SECONDS, TimeUnit.SECONDS);
        }
    }
}
