package org.carla.leaderboard.podruntime.role;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;

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
 * simulator-i: runs the CARLA server and follows the container protocol. Agent done → stop CARLA, write
 * simulator-i.done, exit 0. Agent crash, or CARLA gone → stop, write simulator-i.crashK, wait for the agent, exit 1.
 * simulation.cancel → stop, exit 0.
 */
public final class SimulatorRole {

    private final PairSettings settings;
    private final ChildSpec carla;
    private final Waiter waiter;
    private final PostWriter post;
    private final Runner runner;
    private final TerminationSignal termination;

    public SimulatorRole(PairSettings settings, ChildSpec carla, Waiter waiter, PostWriter post, Runner runner,
            TerminationSignal termination) {
        this.settings = settings;
        this.carla = carla;
        this.waiter = waiter;
        this.post = post;
        this.runner = runner;
        this.termination = termination;
    }

    public int run() throws InterruptedException {
        Set<String> present = waiter.present();
        int k = PairStatus.crashIndex(present, Role.SIMULATOR, settings.pair());
        PairStatus pair = new PairStatus(Role.SIMULATOR, settings.pair(), k);
        DecisionLog log = new DecisionLog(pair.container(), k + 1);
        if (pair.cancelled(present)) {
            log.decide("exit 0 without starting CARLA", "the submission is cancelled (simulation.cancel)");
            return ExitCodes.CANCELLED;
        }
        if (pair.partnerDone(present)) {
            post.post(pair.ownDone());
            log.decide("wrote " + pair.ownDone() + ", exit 0 without starting CARLA", pair.partnerContainer() + " is done");
            return ExitCodes.DONE;
        }
        RunningChild server;
        try {
            server = runner.start(carla);
        } catch (IOException e) {
            return crash(pair, log, null, "CARLA could not start: " + e.getMessage());
        }
        log.decide("started CARLA, pid " + server.pid() + ", port " + settings.carlaPort(), "attempt " + (k + 1)
                + " of the pair");
        while (true) {
            present = waiter.present();
            if (termination.received().isPresent()) {
                server.stop(settings.stopGrace());
                log.decide("stopped CARLA, exit " + ExitCodes.TERMINATED, termination.received().get() + " received");
                return ExitCodes.TERMINATED;
            }
            if (pair.cancelled(present)) {
                server.stop(settings.stopGrace());
                log.decide("stopped CARLA, exit 0", "the submission is cancelled (simulation.cancel)");
                return ExitCodes.CANCELLED;
            }
            if (pair.partnerDone(present)) {
                server.stop(settings.stopGrace());
                post.post(pair.ownDone());
                log.decide("stopped CARLA, wrote " + pair.ownDone() + ", exit 0", pair.partnerContainer() + " is done");
                return ExitCodes.DONE;
            }
            if (pair.partnerCrashed(present)) {
                return crash(pair, log, server, pair.partnerContainer() + " crashed");
            }
            if (server.exitCode().isPresent()) {
                return crash(pair, log, server, "CARLA exited with code " + server.exitCode().getAsInt());
            }
            waiter.awaitChange(Duration.ofSeconds(1));
        }
    }

    private int crash(PairStatus pair, DecisionLog log, RunningChild server, String reason) throws InterruptedException {
        if (server != null) {
            server.stop(settings.stopGrace());
        }
        post.post(pair.ownCrash());
        log.decide("stopped CARLA, wrote " + pair.ownCrash(), reason);
        String answer = new PartnerWait(waiter, termination, log).await(pair.partnerContainer() + "'s status file",
                settings.partnerWait(), pair::partnerAnswer).map(a -> "partner answered: " + a)
                .orElse("no answer from " + pair.partnerContainer());
        log.decide("exit " + ExitCodes.CRASHED, answer);
        return ExitCodes.CRASHED;
    }
}
