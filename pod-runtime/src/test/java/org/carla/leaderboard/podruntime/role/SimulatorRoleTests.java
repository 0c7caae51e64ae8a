package org.carla.leaderboard.podruntime.role;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.TerminationSignal;
import org.junit.jupiter.api.Test;

class SimulatorRoleTests {

    private final Fakes.Status status = new Fakes.Status();
    private final Fakes.Starter runner = new Fakes.Starter(status.clock);
    private final TerminationSignal termination = TerminationSignal.none();

    private int run() throws InterruptedException {
        PairSettings settings = PairSettings.from(Map.of("WORKER_ID", "2", "PARTNER_WAIT", "5"));
        ChildSpec carla = new ChildSpec("carla", List.of("./CarlaUE4.sh"), Optional.of(Path.of("/home/carla")), Map.of(),
                Optional.empty());
        return new PairSupervisor(Role.SIMULATOR, settings, Fakes.parts(status, runner, termination))
                .run(new SimulatorRole(settings, carla));
    }

    @Test
    void agentDoneStopsCarlaAndWritesDone() throws Exception {
        status.then(s -> { }).then(s -> s.with("agent-2.done")).thenThePodEnds(termination);

        assertThat(run()).isZero();
        assertThat(runner.child.stopped).isTrue();
        assertThat(status.posted).containsExactly("simulator-2.done");
        assertThat(status.script).as("held until the pod ended").isEmpty();
    }

    /** A sidecar that exits is started again, 0 or not: done, it waits for the pod's end, then exits 0. */
    @Test
    void aDoneSimulatorHoldsUntilThePodEndsThenExitsZero() throws Exception {
        status.with("agent-2.done");
        for (int look = 0; look < 100; look++) {
            status.then(s -> s.clock.advance(Duration.ofMinutes(1)));
        }
        status.thenThePodEnds(termination);

        assertThat(run()).isZero();
        assertThat(status.script).as("held through 100 minutes until the pod ended").isEmpty();
        assertThat(status.posted).containsExactly("simulator-2.done");
    }

    @Test
    void agentCrashOfThisAttemptStopsCarlaAndWritesTheNextCrashFile() throws Exception {
        status.with("agent-2.crash0", "simulator-2.crash0").then(s -> s.with("agent-2.crash1"));

        assertThat(run()).isEqualTo(1);
        assertThat(runner.child.stopped).isTrue();
        assertThat(status.posted).containsExactly("simulator-2.crash1");
    }

    @Test
    void carlaGoneWritesCrashAndWaitsForTheAgent() throws Exception {
        status.then(s -> runner.child.exit = 139).then(s -> { }).then(s -> s.with("agent-2.crash0"));

        assertThat(run()).isEqualTo(1);
        assertThat(status.posted).containsExactly("simulator-2.crash0");
        assertThat(status.script).as("waited until the agent answered").isEmpty();
    }

    @Test
    void cancelStopsCarlaAndExitsZeroWithoutAStatusFile() throws Exception {
        status.then(s -> s.with("simulation.cancel")).thenThePodEnds(termination);

        assertThat(run()).isZero();
        assertThat(runner.child.stopped).isTrue();
        assertThat(status.posted).isEmpty();
        assertThat(status.script).as("held until the pod ended").isEmpty();
    }

    @Test
    void anAgentAlreadyDoneMeansNoCarlaAtAll() throws Exception {
        status.with("agent-2.done").thenThePodEnds(termination);

        assertThat(run()).isZero();
        assertThat(runner.started).isEmpty();
        assertThat(status.posted).containsExactly("simulator-2.done");
    }

    @Test
    void sigtermStopsCarlaAndExits143() throws Exception {
        status.then(s -> termination.request("SIGTERM"));

        assertThat(run()).isEqualTo(143);
        assertThat(runner.child.stopped).isTrue();
        assertThat(status.posted).isEmpty();
    }
}
