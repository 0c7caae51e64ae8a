package org.carla.leaderboard.podruntime.supervisor;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.jboss.logging.Logger;

import sun.misc.Signal;

/**
 * SIGTERM (Kubernetes stopping the pod) and SIGINT become a stop request that the supervision loop sees like any other
 * event, so the child is stopped the same way as on cancel and the exit is prompt. The JVM's own handler (shutdown
 * hooks, then exit) is replaced while a role runs.
 */
public final class TerminationSignal {

    private static final Logger LOG = Logger.getLogger(TerminationSignal.class);

    private final AtomicReference<String> received = new AtomicReference<>();

    private TerminationSignal() {
    }

    public static TerminationSignal install(Wakeup wakeup) {
        TerminationSignal signal = new TerminationSignal();
        for (String name : new String[] { "TERM", "INT" }) {
            try {
                Signal.handle(new Signal(name), s -> {
                    signal.received.compareAndSet(null, "SIG" + s.getName());
                    wakeup.ring();
                });
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                LOG.warnf("cannot handle SIG%s (%s): the JVM's default applies", name, e.getMessage());
            }
        }
        return signal;
    }

    /** A signal that never arrives, for callers that handle termination themselves. */
    public static TerminationSignal none() {
        return new TerminationSignal();
    }

    /** Delivers a stop request as if the signal had arrived. */
    public void request(String reason) {
        received.compareAndSet(null, reason);
    }

    public Optional<String> received() {
        return Optional.ofNullable(received.get());
    }
}
