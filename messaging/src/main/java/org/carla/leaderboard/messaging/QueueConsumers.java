package org.carla.leaderboard.messaging;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

import org.eclipse.microprofile.health.HealthCheck;

/**
 * The consumers of one service, run as one: started together once what they need is up, stopped together at
 * shutdown, and alive only while every one of them polls. A service's consumer bean holds one (see the README for
 * the pattern): it calls {@link #start()} from its {@code StartupEvent} observer after starting what must run first,
 * {@link #close()} from its {@code ShutdownEvent} observer, and produces {@link #liveness()} as its liveness check.
 */
public final class QueueConsumers implements AutoCloseable {

    /** The liveness check's name. */
    public static final String LIVENESS = "queue-consumers";

    private final List<QueueConsumer> consumers;

    private QueueConsumers(List<QueueConsumer> consumers) {
        if (consumers.isEmpty()) {
            throw new IllegalArgumentException("no consumer");
        }
        this.consumers = List.copyOf(consumers);
    }

    public static QueueConsumers of(QueueConsumer... consumers) {
        return new QueueConsumers(List.of(consumers));
    }

    public void start() {
        consumers.forEach(QueueConsumer::start);
    }

    /** Stops every consumer at once, so shutdown waits for one visibility timeout at most, not one per queue. */
    @Override
    public void close() {
        var stopping = new ArrayList<Thread>();
        for (QueueConsumer consumer : consumers) {
            Thread thread = new Thread(consumer::close, consumer.queue().name() + "-stop");
            thread.start();
            stopping.add(thread);
        }
        for (Thread thread : stopping) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    public List<QueueConsumer> consumers() {
        return consumers;
    }

    public List<ConsumerState> states() {
        return consumers.stream().map(QueueConsumer::state).toList();
    }

    /** Every consumer polls ({@link ConsumerState#live()}). */
    public boolean live() {
        return states().stream().allMatch(ConsumerState::live);
    }

    /**
     * Up while every consumer's polling thread runs and iterates; down when one died or is wedged, which only a restart
     * mends. A queue that does not answer keeps it up (a restart would not help): readiness says that.
     */
    public HealthCheck liveness() {
        return () -> {
            var data = new LinkedHashMap<String, Object>();
            boolean up = true;
            for (ConsumerState state : states()) {
                up &= state.live();
                data.put(state.queue(), describe(state));
            }
            return HealthResponses.of(LIVENESS, up, data);
        };
    }

    private static String describe(ConsumerState state) {
        if (!state.started()) {
            return "stopped";
        }
        if (!state.pollerAlive()) {
            return "polling thread dead";
        }
        String polled = "last poll " + state.sinceLastPoll().toMillis() / 1000 + " s ago";
        String queue = state.queueReachable() ? "" : ", queue unreachable since " + state.outageSince();
        return (state.live() ? "polling, " : "wedged: ") + polled + " (bound " + state.stalledAfter().toSeconds()
                + " s), " + state.inFlight() + " in flight" + queue;
    }
}
