package org.carla.leaderboard.localstack.run;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.carla.leaderboard.localstack.run.ChaosPlan.Kind;
import org.carla.leaderboard.localstack.run.ChaosPlan.Outage;

/**
 * Plays a {@link ChaosPlan} on a running {@link LocalSystem}: one thread per target, each taking its target down at the
 * planned moment and bringing it back after the planned time (a killed service is started again and waited for until
 * ready, a killed server started with its data, a frozen one thawed; EvalAI's faults end by themselves). What was done,
 * and when, is kept for the report. {@link #close()} stops the threads and brings back whatever is down.
 */
public final class Chaos implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Chaos.class.getName());

    private final LocalSystem system;
    private final ChaosPlan plan;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Done> done = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private Instant started;

    /** One outage as it happened: when its target went down and when it was back. */
    public record Done(Outage outage, Instant down, Instant back) {
    }

    public Chaos(LocalSystem system, ChaosPlan plan) {
        this.system = system;
        this.plan = plan;
    }

    /** Starts the clock of the plan now. */
    public synchronized void start() {
        started = Instant.now();
        var targets = new LinkedHashSet<String>();
        plan.outages().forEach(outage -> targets.add(outage.target()));
        for (String target : targets) {
            Thread thread = new Thread(() -> play(plan.of(target)), "chaos-" + target);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    /** Waits until every outage was played and its target is back; false when {@code timeout} passed first. */
    public boolean awaitDone(Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        for (Thread thread : threads()) {
            long left = Duration.between(Instant.now(), deadline).toMillis();
            if (left <= 0) {
                return false;
            }
            thread.join(left);
            if (thread.isAlive()) {
                return false;
            }
        }
        return true;
    }

    public synchronized List<Done> done() {
        return List.copyOf(done);
    }

    /** Targets that could not be taken down or brought back, with why. */
    public synchronized List<String> failures() {
        return List.copyOf(failures);
    }

    public ChaosPlan plan() {
        return plan;
    }

    private synchronized List<Thread> threads() {
        return List.copyOf(threads);
    }

    private void play(List<Outage> outages) {
        for (Outage outage : outages) {
            try {
                sleepUntil(started.plus(outage.at()));
                Instant down = Instant.now();
                LOG.info("chaos: " + outage.describe());
                takeDown(outage);
                try {
                    Thread.sleep(outage.lasting().toMillis());
                } finally {
                    bringBack(outage);
                }
                synchronized (this) {
                    done.add(new Done(outage, down, Instant.now()));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "chaos: " + outage.describe() + " failed", e);
                synchronized (this) {
                    failures.add(outage.describe() + ": " + e.getMessage());
                }
            }
        }
    }

    private void takeDown(Outage outage) {
        var evalAi = system.stack().evalAi();
        switch (outage.kind()) {
            case KILLED -> {
                if (ChaosPlan.SERVICES.contains(outage.target())) {
                    system.kill(outage.target());
                } else {
                    system.stack().server(outage.target()).kill();
                }
            }
            case FROZEN -> system.stack().server(outage.target()).freeze();
            case FAILING -> evalAi.failFor(outage.lasting(), 503);
            case THROTTLING -> evalAi.throttleFor(outage.lasting(), Duration.ofSeconds(5));
            case HANGING -> evalAi.hangFor(outage.lasting());
            case REFUSING -> evalAi.refuseFor(outage.lasting());
        }
    }

    /** Brings the target back; EvalAI's faults end by themselves at the end of their duration. */
    private void bringBack(Outage outage) {
        if (outage.kind() == Kind.KILLED && ChaosPlan.SERVICES.contains(outage.target())) {
            system.start(outage.target());
        } else if (outage.kind() == Kind.KILLED) {
            system.stack().server(outage.target()).start();
        } else if (outage.kind() == Kind.FROZEN) {
            system.stack().server(outage.target()).thaw();
        }
    }

    private static void sleepUntil(Instant moment) throws InterruptedException {
        long wait = Duration.between(Instant.now(), moment).toMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
    }

    /** Stops playing; a target taken down by an interrupted outage is brought back on the way out. */
    @Override
    public void close() {
        for (Thread thread : threads()) {
            thread.interrupt();
        }
        for (Thread thread : threads()) {
            try {
                thread.join(LocalSystem.READY_TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
