package org.carla.leaderboard.podruntime.role;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.DecisionLog;
import org.carla.leaderboard.podruntime.supervisor.PartnerWait;
import org.carla.leaderboard.podruntime.supervisor.PostWriter;
import org.carla.leaderboard.podruntime.supervisor.Runner;
import org.carla.leaderboard.podruntime.supervisor.RunningChild;
import org.carla.leaderboard.podruntime.supervisor.TerminationSignal;
import org.carla.leaderboard.podruntime.supervisor.Waiter;

/**
 * agent-i: waits for CARLA, runs the Leaderboard evaluator (resuming after a crashed attempt), stops it when it exits,
 * idles too long, the simulator crashes, or on cancel; then judges the checkpoint: agent-i.done or agent-i.crashK.
 */
public final class AgentRole {

    private final PairSettings settings;
    /** The evaluator's command for this attempt, given whether it resumes. */
    private final Function<Boolean, ChildSpec> evaluator;
    private final boolean resumeSubmission;
    private final Path checkpoint;
    private final CarlaProbe carla;
    private final Waiter waiter;
    private final PostWriter post;
    private final Runner runner;
    private final TerminationSignal termination;

    public AgentRole(PairSettings settings, Function<Boolean, ChildSpec> evaluator, boolean resumeSubmission,
            Path checkpoint, CarlaProbe carla, Waiter waiter, PostWriter post, Runner runner,
            TerminationSignal termination) {
        this.settings = settings;
        this.evaluator = evaluator;
        this.resumeSubmission = resumeSubmission;
        this.checkpoint = checkpoint;
        this.carla = carla;
        this.waiter = waiter;
        this.post = post;
        this.runner = runner;
        this.termination = termination;
    }

    public int run() throws InterruptedException {
        Set<String> present = waiter.present();
        int k = PairStatus.crashIndex(present, Role.AGENT, settings.pair());
        PairStatus pair = new PairStatus(Role.AGENT, settings.pair(), k);
        DecisionLog log = new DecisionLog(pair.container(), k + 1);
        if (pair.cancelled(present)) {
            log.decide("exit 0 without starting the evaluator", "the submission is cancelled (simulation.cancel)");
            return ExitCodes.CANCELLED;
        }
        Optional<Integer> early = awaitCarla(pair, log);
        if (early.isPresent()) {
            return early.get();
        }
        boolean resume = k > 0 || resumeSubmission;
        RunningChild run;
        try {
            run = runner.start(evaluator.apply(resume));
        } catch (IOException e) {
            return finish(pair, log, "the evaluator could not start: " + e.getMessage());
        }
        log.decide("started the evaluator, pid " + run.pid() + (resume ? ", resuming" : ", from the start"),
                k > 0 ? pair.container() + ".crash" + (k - 1) + " left by the previous attempt"
                        : resumeSubmission ? "RESUME is set for the submission" : "first attempt");
        String reason;
        while (true) {
            present = waiter.present();
            if (termination.received().isPresent()) {
                run.stop(settings.stopGrace());
                log.decide("stopped the evaluator, exit " + ExitCodes.TERMINATED, termination.received().get()
                        + " received");
                return ExitCodes.TERMINATED;
            }
            if (pair.cancelled(present)) {
                run.stop(settings.stopGrace());
                log.decide("stopped the evaluator, exit 0", "the submission is cancelled (simulation.cancel)");
                return ExitCodes.CANCELLED;
            }
            if (run.exitCode().isPresent()) {
                reason = "the evaluator exited with code " + run.exitCode().getAsInt();
                break;
            }
            if (pair.partnerCrashed(present)) {
                run.stop(settings.stopGrace());
                reason = pair.partnerContainer() + " crashed; evaluator stopped";
                break;
            }
            Duration idle = Duration.between(run.lastOutput(), Instant.now());
            if (idle.compareTo(settings.maxIdle()) > 0) {
                run.stop(settings.stopGrace());
                reason = "the evaluator wrote nothing for " + idle.toSeconds() + " s (MAX_IDLE " + settings.maxIdle()
                        + "); stopped";
                break;
            }
            waiter.awaitChange(settings.maxIdle().minus(idle));
        }
        return finish(pair, log, reason);
    }

    /** Waits (bounded) until CARLA accepts connections; an exit code when the attempt ends before that. */
    private Optional<Integer> awaitCarla(PairStatus pair, DecisionLog log) throws InterruptedException {
        log.decide("waiting at most " + settings.partnerWait() + " for CARLA on port " + settings.carlaPort(),
                "the evaluator needs the server");
        long deadline = System.nanoTime() + settings.partnerWait().toNanos();
        while (!carla.accepts()) {
            Set<String> present = waiter.present();
            if (termination.received().isPresent()) {
                log.decide("exit " + ExitCodes.TERMINATED, termination.received().get() + " received");
                return Optional.of(ExitCodes.TERMINATED);
            }
            if (pair.cancelled(present)) {
                log.decide("exit 0 without starting the evaluator", "the submission is cancelled (simulation.cancel)");
                return Optional.of(ExitCodes.CANCELLED);
            }
            if (pair.partnerCrashed(present)) {
                return Optional.of(finish(pair, log, pair.partnerContainer() + " crashed before CARLA accepted"));
            }
            if (System.nanoTime() > deadline) {
                return Optional.of(finish(pair, log, "CARLA did not accept connections on port " + settings.carlaPort()
                        + " within " + settings.partnerWait()));
            }
            waiter.awaitChange(Duration.ofMillis(100));
        }
        log.decide("CARLA accepts connections on port " + settings.carlaPort(), "probe succeeded");
        return Optional.empty();
    }

    /** Judges the checkpoint, writes the done or crash file, and waits (bounded) for the simulator's answer. */
    private int finish(PairStatus pair, DecisionLog log, String why) throws InterruptedException {
        Optional<String> problem = ResultsCheck.problem(checkpoint);
        int exit;
        if (problem.isEmpty()) {
            post.post(pair.ownDone());
            log.decide("wrote " + pair.ownDone(), why + "; the results are complete");
            exit = ExitCodes.DONE;
        } else {
            post.post(pair.ownCrash());
            log.decide("wrote " + pair.ownCrash(), why + "; " + problem.get());
            exit = ExitCodes.CRASHED;
        }
        String answer = new PartnerWait(waiter, termination, log).await(pair.partnerContainer() + "'s status file",
                settings.partnerWait(), pair::partnerAnswer).map(a -> "partner answered: " + a)
                .orElse("no answer from " + pair.partnerContainer());
        log.decide("exit " + exit, answer);
        return exit;
    }
}
