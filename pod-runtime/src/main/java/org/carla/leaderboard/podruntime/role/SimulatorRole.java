package org.carla.leaderboard.podruntime.role;

import java.time.Duration;

import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.RunningChild;

/**
 * simulator-i: runs the CARLA server. Agent done → stop CARLA, write simulator-i.done, exit 0 (already done at the
 * start: no CARLA at all). Agent crash, or CARLA gone → stop, write simulator-i.crashK, wait for the agent, exit 1.
 */
public final class SimulatorRole implements PairPolicy {

    /** How often the loop looks without a reason to: every event wakes it anyway. */
    private static final Duration LOOK = Duration.ofSeconds(1);

    private final PairSettings settings;
    private final ChildSpec carla;

    public SimulatorRole(PairSettings settings, ChildSpec carla) {
        this.settings = settings;
        this.carla = carla;
    }

    @Override
    public String child() {
        return "CARLA";
    }

    @Override
    public Watch beforeStart(Attempt attempt) {
        return present -> attempt.status().partnerDone(present) ? partnerDone(attempt) : new Step.Proceed();
    }

    @Override
    public Start start(Attempt attempt) {
        return new Start(carla, ", port " + settings.carlaPort(), "attempt " + (attempt.crashes() + 1) + " of the pair");
    }

    @Override
    public Watch whileRunning(Attempt attempt, RunningChild server) {
        PairStatus status = attempt.status();
        return present -> {
            if (status.partnerDone(present)) {
                return partnerDone(attempt);
            }
            // CARLA's own exit first: when it died, the agent's crash that followed it is not the cause.
            if (server.exitCode().isPresent()) {
                return crash("CARLA exited with code " + server.exitCode().getAsInt());
            }
            if (status.partnerCrashed(present)) {
                return crash(status.partnerContainer() + " crashed");
            }
            return new Step.Wait(LOOK);
        };
    }

    @Override
    public Step.End couldNotStart(Attempt attempt, String reason) {
        return crash(reason);
    }

    /** The agent finished: the pair is done, nothing left to wait for. */
    private static Step.End partnerDone(Attempt attempt) {
        return new Step.End(attempt.status().partnerContainer() + " is done", true, () -> new Verdict(true, false, ""));
    }

    private static Step.End crash(String reason) {
        return new Step.End(reason, true, () -> new Verdict(false, true, ""));
    }
}
