package org.carla.leaderboard.domain.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SubmissionLayoutTests {

    @Test
    void aRunOfOnePodKeepsTheSeedsLayoutAndEachPodOfSeveralHasItsOwnFolder() {
        assertThat(SubmissionLayout.podPrefix("42", 0, 1)).isEqualTo("42/");
        assertThat(SubmissionLayout.podPath(0, 1, LogsLayout.mergedCheckpoint())).isEqualTo("agent_results.json");
        assertThat(SubmissionLayout.podPrefix("42", 0, 4)).isEqualTo("42/pod-0/");
        assertThat(SubmissionLayout.podPrefix("42", 3, 4)).isEqualTo("42/pod-3/");
        assertThat(SubmissionLayout.podPath(1, 2, LogsLayout.agentCheckpoint(1)))
                .isEqualTo("pod-1/agent/agent1/agent_results.json");
        assertThat(SubmissionLayout.runPairPath(3, 2, 2, LogsLayout::claimFile)).as("the run's pair 3: pod 1's first")
                .isEqualTo("pod-1/claims/agent-1.json");
        assertThat(SubmissionLayout.runPairPath(2, 2, 1, LogsLayout::claimFile)).isEqualTo("claims/agent-2.json");
        assertThat(SubmissionLayout.key("42", SubmissionLayout.podPath(1, 2, "containers-status/logcopy.done")))
                .isEqualTo("42/pod-1/containers-status/logcopy.done");
    }

    @Test
    void aPodOutsideItsRunIsRefused() {
        assertThatThrownBy(() -> SubmissionLayout.podDir(2, 2)).hasMessageContaining("pod 2 of a run of 2 pods");
        assertThatThrownBy(() -> SubmissionLayout.podDir(-1, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SubmissionLayout.podDir(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SubmissionLayout.podDir(0, SubmissionLayout.MAX_PODS + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
