package org.carla.leaderboard.podruntime.role;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvaluatorArgumentsTests {

    @TempDir
    Path temp;

    /** A routes file of six routes whose ids are not their positions: 10, 11, 12, 20, 21, 22. */
    private Path routes() throws IOException {
        var xml = new StringBuilder("<routes>");
        for (String id : List.of("10", "11", "12", "20", "21", "22")) {
            xml.append("<route id=\"").append(id).append("\" town=\"Town12\"><waypoints><position x=\"0\" y=\"0\"")
                    .append(" z=\"0\"/></waypoints><scenarios/></route>");
        }
        return Files.writeString(temp.resolve("routes_testing.xml"), xml.append("</routes>"));
    }

    private Map<String, String> env(String version, String... more) throws IOException {
        var env = new HashMap<>(Map.of("WORKER_ID", "2", "WORKER_PAIRS", "2", "CARLA_PORT", "2100",
                "TEAM_AGENT", "/workspace/team_code/agent.py", "TEAM_CONFIG", "/workspace/team_code/config.yaml",
                "CHALLENGE_TRACK_CODENAME", "MAP", "ROUTES", routes().toString(), "REPETITIONS", "3",
                "LEADERBOARD_VERSION", version));
        for (int i = 0; i < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    private static List<String> arguments(Map<String, String> env, boolean resume) {
        return EvaluatorArguments.of(EvaluatorInputs.from(env, PairSettings.from(env).pair()), 2100, resume,
                Path.of("/tmp/logs/agent/agent2/agent_results.json"), Path.of("/tmp/logs/agent/agent2/live_results.txt"));
    }

    @Test
    void leaderboardTwoTakesItsOwnFlagsAndThePairsShareById() throws Exception {
        String routes = temp.resolve("routes_testing.xml").toString();
        assertThat(arguments(env("2.0"), true)).containsExactly("--port=2100", "--traffic-manager-port=2110",
                "--agent=/workspace/team_code/agent.py", "--agent-config=/workspace/team_code/config.yaml",
                "--track=MAP", "--routes=" + routes, "--routes-subset=20-22", "--repetitions=3", "--resume=1",
                "--checkpoint=/tmp/logs/agent/agent2/agent_results.json", "--record=",
                "--debug-checkpoint=/tmp/logs/agent/agent2/live_results.txt");
    }

    @Test
    void leaderboardOneTakesTrafficManagerPortAndScenariosAndNoDebugCheckpoint() throws Exception {
        String routes = temp.resolve("routes_testing.xml").toString();
        assertThat(arguments(env("1.0", "SCENARIOS", "/workspace/leaderboard/data/scenarios.json", "WORKER_ID", "1"),
                false)).containsExactly("--port=2100", "--trafficManagerPort=2110",
                        "--agent=/workspace/team_code/agent.py", "--agent-config=/workspace/team_code/config.yaml",
                        "--track=MAP", "--routes=" + routes, "--scenarios=/workspace/leaderboard/data/scenarios.json",
                        "--routes-subset=10-12", "--repetitions=3",
                        "--checkpoint=/tmp/logs/agent/agent2/agent_results.json", "--record=");
    }

    @Test
    void noResumeMeansNoResumeArgumentBecauseArgparseReadsAnyTextAsTrue() throws Exception {
        assertThat(arguments(env("2.0"), false)).noneMatch(a -> a.startsWith("--resume"));
    }

    @Test
    void whatTheEvaluatorCannotRunIsAClearErrorBeforeItStarts() throws Exception {
        assertThatThrownBy(() -> arguments(env("1.0"), false))
                .hasMessage("SCENARIOS is not set: the Leaderboard 1.0 evaluator requires --scenarios");
        assertThatThrownBy(() -> arguments(env("2.1"), false))
                .hasMessageStartingWith("LEADERBOARD_VERSION: unknown Leaderboard version '2.1'");
        var noAgent = env("2.0");
        noAgent.remove("TEAM_AGENT");
        assertThatThrownBy(() -> arguments(noAgent, false)).hasMessage("TEAM_AGENT is not set");
        assertThatThrownBy(() -> arguments(env("2.0", "ROUTES", temp.resolve("none.xml").toString()), false))
                .hasMessageStartingWith("cannot read the routes file " + temp.resolve("none.xml"));
        assertThatThrownBy(() -> arguments(env("2.0", "WORKER_PAIRS", "7", "WORKER_ID", "7"), false))
                .hasMessage("7 worker pairs for 6 routes: pair 7 would drive none");
    }

    @Test
    void aRoutesFileThatIsNotTheTracksIsRefused() throws Exception {
        assertThat(arguments(env("2.0", "EXPECTED_ROUTES", "18"), false)).contains("--routes-subset=20-22");
        assertThatThrownBy(() -> arguments(env("2.0", "EXPECTED_ROUTES", "12"), false))
                .hasMessageContaining("holds 6 routes × 3 repetitions, the run expects 12 route records");
    }

    @Test
    void aTemplateIsSplitBeforePlaceholdersSoAValueStaysOneArgument() {
        List<String> argv = CommandTemplate.expand("./CarlaUE4.sh -{renderer} -carla-rpc-port={port}  -nosound",
                Map.of("{renderer}", "vulkan; rm -rf /", "{port}", "2000"));

        assertThat(argv).containsExactly("./CarlaUE4.sh", "-vulkan; rm -rf /", "-carla-rpc-port=2000", "-nosound");
    }
}
