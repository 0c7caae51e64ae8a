package org.carla.leaderboard.podruntime.role;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;

import org.carla.leaderboard.domain.ledger.ClaimAssignment;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.RunningChild;

/**
 * agent-i of a run with a route ledger: waits for CARLA, then drives the claims logcopy gives the pair one after the
 * other, CARLA kept between them. For each: the evaluator on the claim's one route ({@code --routes-subset=<route_id>
 * --repetitions=1}) into the claim's own checkpoint; when it ends with a complete checkpoint, {@code agent-i.claim<n>}
 * tells logcopy to file it, and the agent waits for the next claim. When logcopy says none is left, the attempt ends
 * with {@code agent-i.done}. An evaluator that ends without a complete checkpoint, stops writing for {@code MAX_IDLE},
 * or a simulator crash, ends the attempt with a crash file, as in the static layout ({@link AgentRole}): the pair
 * restarts, and logcopy releases the claim.
 */
public final class ClaimingAgentRole implements PairPolicy {

    /** How often the claim file is read while the agent waits for its next claim. */
    private static final Duration CLAIM_POLL = Duration.ofMillis(200);

    private final PairSettings settings;
    private final ClaimedRoutes claims;
    /** The evaluator's command for a claim, given its checkpoint. */
    private final BiFunction<ClaimAssignment, Path, ChildSpec> evaluator;
    private final CarlaProbe carla;
    private boolean carlaAccepts;
    private ClaimAssignment current;

    public ClaimingAgentRole(PairSettings settings, ClaimedRoutes claims,
            BiFunction<ClaimAssignment, Path, ChildSpec> evaluator, CarlaProbe carla) {
        this.settings = settings;
        this.claims = claims;
        this.evaluator = evaluator;
        this.carla = carla;
    }

    @Override
    public String child() {
        return "the evaluator";
    }

    /**
     * CARLA accepting (once per attempt), then the next claim from logcopy. An attempt that starts with its own done file
     * there is the pair's container started again while it held (killed, OOM): logcopy gave the pair its last claim
     * before, and the simulator stopped CARLA, so it ends done at once, without waiting for a CARLA that will not come.
     */
    @Override
    public Watch beforeStart(Attempt attempt) {
        return new Watch() {
            private boolean waitingLogged;
            private Watch untilCarla;

            @Override
            public Step next(Set<String> present) {
                if (present.contains(attempt.status().ownDone())) {
                    return done(attempt.status().ownDone() + " is there: logcopy said before that no route is left"
                            + " for the pair");
                }
                if (!carlaAccepts) {
                    if (untilCarla == null) {
                        untilCarla = AgentRole.awaitCarla(settings, carla, attempt, ClaimingAgentRole.this::crashed);
                    }
                    Step step = untilCarla.next(present);
                    if (!(step instanceof Step.Proceed)) {
                        return step;
                    }
                    carlaAccepts = true;
                }
                if (attempt.status().partnerCrashed(present)) {
                    return crashed(attempt.status().partnerContainer() + " crashed while agent waited for its claim");
                }
                Optional<ClaimAssignment> next = claims.next(present);
                if (next.isEmpty()) {
                    if (!waitingLogged) {
                        waitingLogged = true;
                        attempt.log().decide("waiting for the next claim", "logcopy gives the pair its routes");
                    }
                    return new Step.Wait(CLAIM_POLL);
                }
                if (next.get().none()) {
                    return done("logcopy says no route is left for the pair"
                            + (next.get().reason().isEmpty() ? "" : " (" + next.get().reason() + ")"));
                }
                current = next.get();
                return new Step.Proceed();
            }
        };
    }

    @Override
    public Start start(Attempt attempt) {
        return new Start(evaluator.apply(current, claims.checkpoint(current)), ", " + current,
                "logcopy gave the pair " + current);
    }

    @Override
    public Watch whileRunning(Attempt attempt, RunningChild run) {
        return AgentRole.watchEvaluator(settings, attempt, run, this::ended);
    }

    @Override
    public Step.End couldNotStart(Attempt attempt, String reason) {
        return crashed(reason);
    }

    /**
     * The claim's evaluator has ended (exited, or is to be stopped): a complete checkpoint after an exit goes to
     * logcopy and the attempt goes on; anything else ends the attempt with a crash file.
     */
    private Step ended(String reason, boolean stopEvaluator) {
        Path checkpoint = claims.checkpoint(current);
        if (!stopEvaluator) {
            AgentRole.shareCheckpoint(checkpoint);
            Optional<String> problem = ResultsCheck.problem(checkpoint);
            if (problem.isEmpty()) {
                return new Step.Next(StatusFiles.claimEnded(settings.pair(), current.number()), reason + "; "
                        + current + " is complete");
            }
            return new Step.End(reason + " (" + current + ")", false, () -> new Verdict(false, true, "; "
                    + problem.get()));
        }
        return new Step.End(reason + " (" + current + ")", true, () -> {
            AgentRole.shareCheckpoint(checkpoint);
            return new Verdict(false, true, "");
        });
    }

    /** The pair's routes are over: {@code agent-i.done}, once the simulator answers. */
    private static Step.End done(String reason) {
        return new Step.End(reason, false, () -> new Verdict(true, true, ""));
    }

    private Step.End crashed(String reason) {
        return new Step.End(reason, false, () -> new Verdict(false, true, ""));
    }
}
