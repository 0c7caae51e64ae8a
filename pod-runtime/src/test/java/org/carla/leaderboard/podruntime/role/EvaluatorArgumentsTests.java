package org.carla.leaderboard.podruntime.role;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class EvaluatorArgumentsTests {

    private final Map<String, String> env = Map.of("WORKER_ID", "2", "CARLA_PORT", "2100",
            "TEAM_AGENT", "/workspace/team_code/agent.py", "TEAM_CONFIG", "/workspace/team_code/config.yaml",
            "CHALLENGE_TRACK_CODENAME", "MAP", "ROUTES", "/workspace/leaderboard/data/routes.xml",
            "ROUTES_SUBSET", "5-9", "REPETITIONS", "3");

    @Test
    void theArgumentsAreTheLeaderboardEvaluatorsOwn() {
        List<String> args = EvaluatorArguments.of(PairSettings.from(env), env, true, Path.of("/tmp/logs/agent/agent2/agent_results.json"),
                Path.of("/tmp/logs/agent/agent2/live_results.txt"));

        assertThat(args).containsExactly("--port=2100", "--traffic-manager-port=2110",
                "--agent=/workspace/team_code/agent.py", "--agent-config=/workspace/team_code/config.yaml",
                "--track=MAP", "--routes=/workspace/leaderboard/data/routes.xml", "--routes-subset=5-9",
                "--repetitions=3", "--resume=1", "--checkpoint=/tmp/logs/agent/agent2/agent_results.json", "--record=",
                "--debug-checkpoint=/tmp/logs/agent/agent2/live_results.txt");
    }

    @Test
    void noResumeMeansNoResumeArgumentBecauseArgparseReadsAnyTextAsTrue() {
        List<String> args = EvaluatorArguments.of(PairSettings.from(env), env, false, Path.of("c.json"), Path.of("d.txt"));
        assertThat(args).noneMatch(a -> a.startsWith("--resume"));
    }

    @Test
    void aMissingAgentIsAClearError() {
        Map<String, String> noAgent = Map.of("WORKER_ID", "1", "ROUTES", "r.xml");
        assertThatThrownBy(() -> EvaluatorArguments.of(PairSettings.from(noAgent), noAgent, false, Path.of("c"), Path.of("d")))
                .hasMessage("TEAM_AGENT is not set");
    }

    @Test
    void aTemplateIsSplitBeforePlaceholdersSoAValueStaysOneArgument() {
        List<String> argv = CommandTemplate.expand("./CarlaUE4.sh -{renderer} -carla-rpc-port={port}  -nosound",
                Map.of("{renderer}", "vulkan; rm -rf /", "{port}", "2000"));

        assertThat(argv).containsExactly("./CarlaUE4.sh", "-vulkan; rm -rf /", "-carla-rpc-port=2000", "-nosound");
    }
}
