package org.carla.leaderboard.podruntime.role;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.TerminationSignal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClaimingAgentRoleTests {

    @TempDir
    Path logs;

    private final Fakes.Status status = new Fakes.Status();
    private final Fakes.Starter runner = new Fakes.Starter(status.clock);
    private final TerminationSignal termination = TerminationSignal.none();

    private int run() throws InterruptedException {
        PairSettings settings = PairSettings.from(Map.of("WORKER_ID", "1", "PARTNER_WAIT", "600"));
        return new PairSupervisor(Role.AGENT, settings, Fakes.parts(status, runner, termination)).run(
                new ClaimingAgentRole(settings, new ClaimedRoutes(logs, 1), (claim, checkpoint) -> new ChildSpec(
                        "evaluator", List.of("python3", "leaderboard_evaluator.py"), Optional.empty(), Map.of(),
                        Optional.empty()), () -> false));
    }

    /**
     * The agent held after logcopy gave the pair its last claim, and died while it held (OOM, a kill): the kubelet starts
     * it again, the simulator has stopped CARLA. It ends done at once and holds again, instead of waiting for CARLA and
     * writing a crash file that would count against the pod's restart limit.
     */
    @Test
    void anAgentStartedAgainAfterItsLastClaimIsDoneAtOnceAndHolds() throws Exception {
        status.with("agent-1.start0", "simulator-1.start0", "agent-1.done", "simulator-1.done", "agent-1.start1")
                .thenThePodEnds(termination);
        Instant start = status.clock.instant();

        assertThat(run()).isZero();

        assertThat(status.posted).containsExactly("agent-1.done");
        assertThat(runner.started).isEmpty();
        assertThat(Duration.between(start, status.clock.instant())).as("no wait for CARLA")
                .isLessThan(Duration.ofMinutes(1));
    }

    @Test
    void anAgentWithoutItsDoneFileWaitsForCarlaAndCrashesWithoutIt() throws Exception {
        status.with("agent-1.start0", "simulator-1.start0");

        assertThat(run()).isEqualTo(1);

        assertThat(status.posted).containsExactly("agent-1.crash0");
        assertThat(runner.started).isEmpty();
    }
}
