package org.carla.leaderboard.podruntime.role;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.carla.leaderboard.domain.results.ResumePoint;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.RunningChild;
import org.carla.leaderboard.podruntime.volume.SharedFiles;
import org.jboss.logging.Logger;

/**
 * agent-i: waits for CARLA, runs the Leaderboard evaluator (resuming what an earlier attempt or run finished), stops it
 * when it idles too long or the simulator crashes; then judges the checkpoint: agent-i.done or agent-i.crashK.
 */
public final class AgentRole implements PairPolicy {

    private static final Logger LOG = Logger.getLogger(AgentRole.class);
    /** How often CARLA's port is probed while the agent waits for it. */
    private static final Duration PROBE = Duration.ofMillis(100);

    private final PairSettings settings;
    /** The evaluator's command for this attempt, given whether it resumes. */
    private final Function<Boolean, ChildSpec> evaluator;
    private final boolean resumeSubmission;
    private final Path checkpoint;
    private final CarlaProbe carla;

    public AgentRole(PairSettings settings, Function<Boolean, ChildSpec> evaluator, boolean resumeSubmission,
            Path checkpoint, CarlaProbe carla) {
        this.settings = settings;
        this.evaluator = evaluator;
        this.resumeSubmission = resumeSubmission;
        this.checkpoint = checkpoint;
        this.carla = carla;
    }

    @Override
    public String child() {
        return "the evaluator";
    }

    /** Waits (bounded) until CARLA accepts connections. */
    @Override
    public Watch beforeStart(Attempt attempt) {
        return awaitCarla(settings, carla, attempt, reason -> judged(reason, false));
    }

    /** Proceeds once CARLA accepts connections; ends the attempt ({@code failed}) on a partner crash or the deadline. */
    static Watch awaitCarla(PairSettings settings, CarlaProbe carla, Attempt attempt, Function<String, Step> failed) {
        attempt.log().decide("waiting at most " + settings.partnerWait() + " for CARLA on port " + settings.carlaPort(),
                "the evaluator needs the server");
        Instant deadline = attempt.now().plus(settings.partnerWait());
        return present -> {
            if (carla.accepts()) {
                attempt.log().decide("CARLA accepts connections on port " + settings.carlaPort(), "probe succeeded");
                return new Step.Proceed();
            }
            if (attempt.status().partnerCrashed(present)) {
                return failed.apply(attempt.status().partnerContainer() + " crashed before CARLA accepted");
            }
            if (attempt.now().isAfter(deadline)) {
                return failed.apply("CARLA did not accept connections on port " + settings.carlaPort() + " within "
                        + settings.partnerWait());
            }
            return new Step.Wait(PROBE);
        };
    }

    /**
     * Resumes after a crash file of this container, for a resumed submission, and whenever the checkpoint already holds
     * finished routes the evaluator would keep: an attempt killed without a goodbye (OOM, eviction, SIGKILL) leaves
     * no crash file, and starting over would overwrite its routes.
     */
    @Override
    public Start start(Attempt attempt) {
        ResumePoint onDisk = ResultsCheck.resumePoint(checkpoint);
        int k = attempt.crashes();
        Optional<String> why = k > 0 ? Optional.of(attempt.status().container() + ".crash" + (k - 1)
                + " left by the previous attempt")
                : resumeSubmission ? Optional.of("RESUME is set for the submission")
                : onDisk.keepsRoutes() ? Optional.of("the checkpoint holds " + onDisk.index()
                        + " finished routes (an earlier attempt ended without a crash file)")
                : Optional.empty();
        String fresh = "nothing to resume: no crash file, RESUME unset, "
                + onDisk.refusal().map(r -> "checkpoint: " + r).orElse("no finished route in the checkpoint");
        return new Start(evaluator.apply(why.isPresent()), why.isPresent() ? ", resuming" : ", from the start",
                why.orElse(fresh));
    }

    @Override
    public Watch whileRunning(Attempt attempt, RunningChild run) {
        return watchEvaluator(settings, attempt, run, this::judged);
    }

    /**
     * What ends a running evaluator: its exit ({@code ended}, the evaluator stopped already), the partner's crash or
     * {@code MAX_IDLE} without output ({@code ended}, the evaluator to stop).
     */
    static Watch watchEvaluator(PairSettings settings, Attempt attempt, RunningChild run,
            BiFunction<String, Boolean, Step> ended) {
        ResultsCheck.prepare();
        return present -> {
            if (run.exitCode().isPresent()) {
                return ended.apply("the evaluator exited with code " + run.exitCode().getAsInt(), false);
            }
            if (attempt.status().partnerCrashed(present)) {
                return ended.apply(attempt.status().partnerContainer() + " crashed", true);
            }
            Duration idle = Duration.between(run.lastOutput(), attempt.now());
            if (idle.compareTo(settings.maxIdle()) > 0) {
                return ended.apply("the evaluator wrote nothing for " + idle.toSeconds() + " s (MAX_IDLE "
                        + settings.maxIdle() + ")", true);
            }
            return new Step.Wait(settings.maxIdle().minus(idle));
        };
    }

    @Override
    public Step.End couldNotStart(Attempt attempt, String reason) {
        return judged(reason, false);
    }

    /** The attempt ends; its verdict is the checkpoint's, read once the evaluator has stopped. */
    private Step.End judged(String reason, boolean stopEvaluator) {
        return new Step.End(reason, stopEvaluator, () -> {
            shareCheckpoint(checkpoint);
            return ResultsCheck.problem(checkpoint).map(problem -> new Verdict(false, true, "; " + problem))
                    .orElseGet(() -> new Verdict(true, true, "; the results are complete"));
        });
    }

    /**
     * The evaluator writes the checkpoint under the participant's umask; logcopy, another user, uploads it and merges
     * it after the done files. This container runs as the evaluator's user, so it can open the file to everyone before
     * it says how the attempt ended. A link is left alone (its target is not this container's to change).
     */
    static void shareCheckpoint(Path checkpoint) {
        try {
            if (Files.isRegularFile(checkpoint, LinkOption.NOFOLLOW_LINKS)) {
                SharedFiles.readableByAll(checkpoint);
            }
        } catch (IOException e) {
            LOG.warnf("cannot make %s readable by the other containers: %s", checkpoint, e);
        }
    }
}
