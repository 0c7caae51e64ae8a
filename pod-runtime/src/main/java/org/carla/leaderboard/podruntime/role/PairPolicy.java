package org.carla.leaderboard.podruntime.role;

import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;

import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.RunningChild;

/**
 * What makes a container of a worker pair the simulator or the agent; {@link PairSupervisor} does the rest (the
 * status files, the stop request, the cancel, the child's start and stop, the partner's answer).
 */
public interface PairPolicy {

    /** The child as the log names it: "CARLA", "the evaluator". */
    String child();

    /**
     * Looked at, at every change, until it says {@link Step.Proceed} (start the child) or {@link Step.End}; again after
     * each child that ended with {@link Step.Next}.
     */
    Watch beforeStart(Attempt attempt);

    /** The child of this attempt and why it starts so. */
    Start start(Attempt attempt);

    /** What ends the attempt while the child runs; asked once the child has started. */
    Watch whileRunning(Attempt attempt, RunningChild child);

    /** The end of an attempt whose child could not start. */
    Step.End couldNotStart(Attempt attempt, String reason);

    /** A look at the present status files (and the child): what to do next. */
    @FunctionalInterface
    interface Watch {
        Step next(Set<String> present);
    }

    /** The child to start; {@code detail} follows its pid in the log line, {@code reason} says why. */
    record Start(ChildSpec spec, String detail, String reason) {
    }

    /** How an ended attempt leaves the pair: done or crashed, and whether it waits for the partner's answer. */
    record Verdict(boolean done, boolean awaitPartner, String detail) {
    }

    sealed interface Step {

        /** Nothing decided: look again at the next change, at the latest after {@code atMost}. */
        record Wait(Duration atMost) implements Step {
        }

        /** What had to hold before the start holds. */
        record Proceed() implements Step {
        }

        /** The attempt ends: why, whether the child is stopped first, and the verdict (judged after the stop). */
        record End(String reason, boolean stopChild, Supplier<Verdict> verdict) implements Step {
        }

        /**
         * The child has done its part and the attempt goes on (the agent's claim of the route ledger ended): post
         * {@code statusFile}, then look at {@link PairPolicy#beforeStart} again for the next child.
         */
        record Next(String statusFile, String reason) implements Step {
        }

        /** The attempt is over, without a status file (a stop request, the cancel). */
        record Exit(int code) implements Step {
        }
    }
}
