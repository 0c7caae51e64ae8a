package org.carla.leaderboard.relay.lease;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;

/**
 * One candidate for a {@code coordination.k8s.io/v1} Lease, through fabric8's {@code LeaderElector} (get, create and
 * update with the resourceVersion lock: two candidates never both win one write). Holding the Lease is a term: it
 * {@link Terms#begin() begins} when the Lease is acquired and {@link Terms#end() ends} when a renewal has failed for
 * the renew deadline (the API server unreachable, or another holder took it after it lapsed) or at {@link #close()},
 * which releases the Lease so another candidate takes it at once. After a lost term the candidate stands by and tries
 * again every retry period, for as long as it is not closed.
 */
public final class LeaseCandidate implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LeaseCandidate.class);

    /** What the holder does: called one at a time, {@code end} once after each {@code begin}. */
    public interface Terms {
        void begin();

        void end();
    }

    /**
     * @param namespace     the Lease's namespace
     * @param name          the Lease's name
     * @param identity      this candidate's holder identity, unique per process start
     * @param duration      how long a Lease not renewed stays held (others wait this long after its last renewal)
     * @param renewDeadline how long the holder keeps trying to renew before its term ends; shorter than the duration,
     *                      so the holder has stood down before another may take the Lease
     * @param retryPeriod   how often the holder renews and a candidate tries to acquire
     */
    public record Settings(String namespace, String name, String identity, Duration duration, Duration renewDeadline,
            Duration retryPeriod) {

        public Settings {
            if (renewDeadline.compareTo(duration) >= 0 || retryPeriod.compareTo(renewDeadline) >= 0) {
                throw new IllegalArgumentException("a lease needs retry period < renew deadline < duration, not "
                        + retryPeriod + ", " + renewDeadline + ", " + duration);
            }
        }
    }

    private final KubernetesClient client;
    private final Settings settings;
    private final Terms terms;
    private final ScheduledExecutorService retries;
    /** Held while a term begins or ends, so a close waits for an end already under way. */
    private final ReentrantLock term = new ReentrantLock();
    /** A term has begun and its end has not been called (guarded by {@link #term}). */
    private boolean inTerm;
    /** What {@link #holding()} answers: false from the moment a term starts to end. */
    private volatile boolean holding;
    private boolean closed;
    private LeaderElector elector;
    private CompletableFuture<?> election;
    private volatile String holder;

    public LeaseCandidate(KubernetesClient client, Settings settings, Terms terms) {
        this.client = client;
        this.settings = settings;
        this.terms = terms;
        this.retries = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "lease-" + settings.name());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Stands for the Lease: acquires it when it is free or has lapsed, and keeps standing until closed. */
    public synchronized void start() {
        if (closed || election != null) {
            return;
        }
        stand();
    }

    private synchronized void stand() {
        if (closed) {
            return;
        }
        var config = new LeaderElectionConfigBuilder()
                .withName(settings.name())
                .withLock(new LeaseLock(settings.namespace(), settings.name(), settings.identity()))
                .withLeaseDuration(settings.duration())
                .withRenewDeadline(settings.renewDeadline())
                .withRetryPeriod(settings.retryPeriod())
                .withReleaseOnCancel(false)
                .withLeaderCallbacks(new LeaderCallbacks(this::began, this::ended, this::observed))
                .build();
        try {
            elector = client.leaderElector().withConfig(config).build();
            election = elector.start();
            election.whenComplete((done, failure) -> lost(failure));
        } catch (RuntimeException e) {
            lost(e);
        }
    }

    /** The election ended without a close (the term lost, or the API server refused): stand again after a pause. */
    private void lost(Throwable failure) {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        if (failure != null) {
            LOG.debugf("lease %s: election ended (%s); standing again in %s", settings.name(), failure.toString(),
                    settings.retryPeriod());
        }
        ended();
        try {
            retries.schedule(this::stand, settings.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed meanwhile: nothing to stand for
        }
    }

    private void began() {
        term.lock();
        try {
            synchronized (this) {
                if (inTerm || closed) {
                    return;
                }
            }
            inTerm = true;
            holding = true;
            holder = settings.identity();
            terms.begin();
        } finally {
            term.unlock();
        }
    }

    /** The term's end: not holding at once (what {@link #holding()} reads), then the holder's work stopped. */
    private void ended() {
        holding = false;
        term.lock();
        try {
            if (!inTerm) {
                return;
            }
            inTerm = false;
            terms.end();
        } finally {
            term.unlock();
        }
    }

    private void observed(String identity) {
        holder = identity;
    }

    /** Whether this candidate holds the Lease now (a term has begun and not ended). */
    public boolean holding() {
        return holding;
    }

    /** The holder last seen by this candidate (itself while holding); empty when none was seen or it released. */
    public Optional<String> holder() {
        return Optional.ofNullable(holder).filter(identity -> !identity.isEmpty());
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Stops standing and releases the Lease (written with a one-second duration, so another candidate takes it at its
     * next try instead of waiting for it to lapse), then ends the term, if one runs: work in hand finishes after the
     * release (harmless: see the README, "Active and standby"). Never stands again.
     */
    @Override
    public void close() {
        LeaderElector releasing;
        CompletableFuture<?> running;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            releasing = elector;
            running = election;
        }
        retries.shutdownNow();
        boolean wasHolding = holding;
        holding = false;
        if (running != null) {
            running.cancel(true);
        }
        if (releasing != null && wasHolding) {
            try {
                releasing.release();
            } catch (RuntimeException e) {
                LOG.warnf("lease %s: not released (%s); the other replica takes it when it lapses, within %s",
                        settings.name(), e.getMessage(), settings.duration());
            }
        }
        ended();
    }
}
