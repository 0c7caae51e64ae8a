package org.carla.leaderboard.podruntime.role;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.podruntime.ExitCodes;
import org.carla.leaderboard.podruntime.role.PairPolicy.Step;
import org.carla.leaderboard.podruntime.role.PairPolicy.Verdict;
import org.carla.leaderboard.podruntime.supervisor.DecisionLog;
import org.carla.leaderboard.podruntime.supervisor.PartnerWait;
import org.carla.leaderboard.podruntime.supervisor.PostWriter;
import org.carla.leaderboard.podruntime.supervisor.Runner;
import org.carla.leaderboard.podruntime.supervisor.RunningChild;
import org.carla.leaderboard.podruntime.supervisor.TerminationSignal;
import org.carla.leaderboard.podruntime.supervisor.Waiter;

/**
 * One container of a worker pair under docs/container-protocol.md, as Tekton's {@code Entrypointer}: waits
 * for what the role needs, runs the child, watches the status files, and writes the status file that tells the partner
 * how the attempt ended, then waits (bounded) for the partner's answer. The same for both roles, whatever happens:
 * SIGTERM stops the child and exits 143 with no status file; {@code simulation.cancel} stops it, with none; an exit 0
 * (done, cancelled) waits for the pod's end first. The role's {@link PairPolicy} says the rest.
 */
public final class PairSupervisor {

    static final String CANCELLED = "the submission is cancelled (" + StatusFiles.SIMULATION_CANCEL + ")";

    /** The parts it runs on: Tekton's waiter, post writer and runner, the stop request, and the time. */
    public record Parts(Waiter waiter, PostWriter post, Runner runner, TerminationSignal termination, Clock clock) {
    }

    private final Role role;
    private final int pair;
    private final Duration partnerWait;
    private final Duration stopGrace;
    private final Parts parts;

    public PairSupervisor(Role role, PairSettings settings, Parts parts) {
        this.role = role;
        this.pair = settings.pair();
        this.partnerWait = settings.partnerWait();
        this.stopGrace = settings.stopGrace();
        this.parts = parts;
    }

    /** Runs one attempt of the container, and {@linkplain #hold holds} an exit 0 until the pod ends; its exit code. */
    public int run(PairPolicy policy) throws InterruptedException {
        int k = StatusFiles.crashCount(parts.waiter().present(), role, pair);
        PairStatus status = new PairStatus(role, pair, k);
        Attempt attempt = new Attempt(status, new DecisionLog(status.container(), k + 1), parts.clock());
        int exit = supervise(attempt, policy);
        return exit == ExitCodes.DONE ? hold(attempt) : exit;
    }

    /**
     * A pair container is a sidecar of the pod (an init container with {@code restartPolicy: Always}): the kubelet
     * starts it again after any exit, 0 included, as long as the pod lives, and stops it (SIGTERM) only once logcopy,
     * the pod's one regular container, has ended. So an attempt that ended with 0 (its done file written, or the
     * cancel) waits for that SIGTERM, and exits 0 then. A non-zero exit is not held: the kubelet restarts it.
     */
    private int hold(Attempt attempt) throws InterruptedException {
        attempt.log().decide("holding: exit " + ExitCodes.DONE + " once the pod ends (SIGTERM)",
                "a pair container is a sidecar: the kubelet would start it again after any exit");
        while (parts.termination().received().isEmpty()) {
            parts.waiter().awaitChange(Duration.ofMinutes(1)); // the signal rings the wake-up: it ends the wait
        }
        attempt.log().decide("exit " + ExitCodes.DONE, parts.termination().received().get() + " received: the pod ends");
        return ExitCodes.DONE;
    }

    private int supervise(Attempt attempt, PairPolicy policy) throws InterruptedException {
        Step before = watch(attempt, policy, null, () -> policy.beforeStart(attempt));
        boolean startedOne = false;
        while (before instanceof Step.Proceed) {
            PairPolicy.Start start = policy.start(attempt);
            Optional<Path> childLog = start.spec().logFile();
            RunningChild child;
            try {
                child = parts.runner().start(start.spec());
            } catch (IOException e) {
                return end(attempt, policy, null, false, childLog, policy.couldNotStart(attempt, policy.child()
                        + " could not start: " + e.getMessage()));
            }
            attempt.log().decide("started " + policy.child() + ", pid " + child.pid() + start.detail(), start.reason());
            Step running = watch(attempt, policy, child, () -> policy.whileRunning(attempt, child));
            if (!(running instanceof Step.Next next)) {
                return finish(attempt, policy, child, childLog, running);
            }
            parts.post().post(next.statusFile());
            attempt.log().decide("wrote " + next.statusFile(), next.reason());
            startedOne = true;
            before = watch(attempt, policy, null, () -> policy.beforeStart(attempt));
        }
        if (before instanceof Step.End end) {
            return end(attempt, policy, null, startedOne, Optional.empty(), end);
        }
        return finish(attempt, policy, null, Optional.empty(), before);
    }

    private int finish(Attempt attempt, PairPolicy policy, RunningChild child, Optional<Path> childLog, Step step)
            throws InterruptedException {
        if (step instanceof Step.End end) {
            return end(attempt, policy, child, child != null, childLog, end);
        }
        if (step instanceof Step.Exit exit) {
            return exit.code();
        }
        throw new IllegalStateException(policy.child() + ": " + step + " once the child runs");
    }

    /**
     * Looks at the status files at every change until the policy's watch decides, or a stop request (exit 143) or the
     * cancel file (exit 0) ends the attempt first; the child, if one runs, is stopped then. The watch is asked for
     * only after the first look, so an attempt cancelled already does nothing of its role.
     */
    private Step watch(Attempt attempt, PairPolicy policy, RunningChild child, Supplier<PairPolicy.Watch> policyWatch)
            throws InterruptedException {
        String stopped = child == null ? "" : "stopped " + policy.child() + ", ";
        PairPolicy.Watch watch = null;
        while (true) {
            Set<String> present = parts.waiter().present();
            Optional<String> signal = parts.termination().received();
            if (signal.isPresent()) {
                stop(child);
                attempt.log().decide(stopped + "exit " + ExitCodes.TERMINATED, signal.get() + " received");
                return new Step.Exit(ExitCodes.TERMINATED);
            }
            if (attempt.status().cancelled(present)) {
                stop(child);
                attempt.log().decide(stopped + "exit " + ExitCodes.CANCELLED
                        + (child == null ? " without starting " + policy.child() : ""), CANCELLED);
                return new Step.Exit(ExitCodes.CANCELLED);
            }
            if (watch == null) {
                watch = policyWatch.get();
            }
            Step step = watch.next(present);
            if (!(step instanceof Step.Wait wait)) {
                return step;
            }
            parts.waiter().awaitChange(wait.atMost());
        }
    }

    /**
     * Writes the status file of the verdict and, when the verdict asks, waits (bounded) for the partner's answer. The
     * verdict goes into the child's own log first, which logcopy uploads and the relay quotes to the participant: the
     * container's stdout, where the decision log writes, never leaves the cluster.
     */
    private int end(Attempt attempt, PairPolicy policy, RunningChild child, boolean started, Optional<Path> childLog,
            Step.End end) throws InterruptedException {
        boolean stopping = child != null && end.stopChild();
        if (stopping) {
            stop(child);
        }
        Verdict verdict = end.verdict().get();
        PairStatus status = attempt.status();
        if (!verdict.done() && status.cancelled(parts.waiter().present())) {
            // The cancel came while the attempt ended (the partner stopped on it first, and the child died of that):
            // a cancelled run, not a crash to be restarted.
            stop(child);
            attempt.log().decide((child == null ? "" : "stopped " + policy.child() + ", ") + "exit "
                    + ExitCodes.CANCELLED, CANCELLED + " as the attempt ended: " + end.reason());
            return ExitCodes.CANCELLED;
        }
        String file = verdict.done() ? status.ownDone() : status.ownCrash();
        int exit = verdict.done() ? ExitCodes.DONE : ExitCodes.CRASHED;
        String decision = (stopping ? "stopped " + policy.child() + ", " : "") + "wrote " + file
                + (verdict.awaitPartner() ? "" : ", exit " + exit)
                + (started ? "" : " without starting " + policy.child());
        String reason = end.reason() + verdict.detail();
        childLog.ifPresent(log -> noteInChildLog(log, "# " + status.container() + " attempt " + attempt.log().attempt()
                + " ended: " + decision + "; reason: " + reason + "\n"));
        parts.post().post(file);
        attempt.log().decide(decision, reason);
        if (verdict.awaitPartner()) {
            String answer = new PartnerWait(parts.waiter(), parts.termination(), parts.clock(), attempt.log())
                    .await(status.partnerContainer() + "'s status file", partnerWait, status::partnerAnswer)
                    .map(a -> "partner answered: " + a).orElse("no answer from " + status.partnerContainer());
            attempt.log().decide("exit " + exit, answer);
        }
        return exit;
    }

    /**
     * Appends to the child's log only when it is a regular file: the participant's code can put a link or a FIFO at its
     * path, and the status file must be written whatever it did.
     */
    private static void noteInChildLog(Path log, String line) {
        try {
            if (Files.isRegularFile(log, LinkOption.NOFOLLOW_LINKS)) {
                Files.writeString(log, line, StandardCharsets.UTF_8, StandardOpenOption.APPEND,
                        LinkOption.NOFOLLOW_LINKS);
            }
        } catch (IOException | UnsupportedOperationException e) {
            // the decision log (stdout) still says it
        }
    }

    private void stop(RunningChild child) {
        if (child != null) {
            child.stop(stopGrace);
        }
    }
}
