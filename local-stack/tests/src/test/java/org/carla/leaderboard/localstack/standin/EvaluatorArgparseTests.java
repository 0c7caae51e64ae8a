package org.carla.leaderboard.localstack.standin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.junit.jupiter.api.Test;

/**
 * The stand-in's argparse against the real one: every expected text here is what Python 3.11's argparse printed for
 * the parser of each branch's {@code main()} (carla-simulator/leaderboard, {@code leaderboard-1.0} at 2165f5e,
 * {@code leaderboard-2.0} at a87a341), run with the same arguments, output not a terminal.
 */
class EvaluatorArgparseTests {

    private static final String PROG = "leaderboard_evaluator.py";
    static final String USAGE_2_0 = """
            usage: leaderboard_evaluator.py [-h] [--host HOST] [--port PORT]
                                            [--traffic-manager-port TRAFFIC_MANAGER_PORT]
                                            [--traffic-manager-seed TRAFFIC_MANAGER_SEED]
                                            [--debug DEBUG] [--record RECORD]
                                            [--timeout TIMEOUT] --routes ROUTES
                                            [--routes-subset ROUTES_SUBSET]
                                            [--repetitions REPETITIONS] -a AGENT
                                            [--agent-config AGENT_CONFIG] [--track TRACK]
                                            [--resume RESUME] [--checkpoint CHECKPOINT]
                                            [--debug-checkpoint DEBUG_CHECKPOINT]
            """;
    static final String USAGE_1_0 = """
            usage: leaderboard_evaluator.py [-h] [--host HOST] [--port PORT]
                                            [--trafficManagerPort TRAFFICMANAGERPORT]
                                            [--trafficManagerSeed TRAFFICMANAGERSEED]
                                            [--debug DEBUG] [--record RECORD]
                                            [--timeout TIMEOUT] --routes ROUTES
                                            --scenarios SCENARIOS
                                            [--repetitions REPETITIONS]
                                            [--routes-subset ROUTES_SUBSET] -a AGENT
                                            [--agent-config AGENT_CONFIG] [--track TRACK]
                                            [--resume RESUME] [--checkpoint CHECKPOINT]
            """;

    private static EvaluatorArgparse.Result parse(LeaderboardVersion version, String... argv) {
        return EvaluatorArgparse.of(version).parse(PROG, List.of(argv), Map.of());
    }

    private static void refused(LeaderboardVersion version, String error, String... argv) {
        String usage = version == LeaderboardVersion.V1_0 ? USAGE_1_0 : USAGE_2_0;
        assertThat(parse(version, argv)).as(String.join(" ", argv))
                .isEqualTo(new EvaluatorArgparse.Exit(2, "", usage + PROG + ": error: " + error + "\n"));
    }

    @Test
    void whatAMissingArgumentPrintsIsArgparsesOwn() {
        refused(LeaderboardVersion.V2_0, "the following arguments are required: --routes, -a/--agent");
        refused(LeaderboardVersion.V1_0, "the following arguments are required: --routes, --scenarios, -a/--agent");
    }

    @Test
    void theOtherBranchsFlagsAreRefused() {
        refused(LeaderboardVersion.V2_0, "unrecognized arguments: --scenarios=s", "--routes=r", "--agent=a",
                "--scenarios=s");
        // What 1.0 said to the 2.0 arguments pod-runtime passed before: a missing --scenarios comes first.
        refused(LeaderboardVersion.V1_0, "the following arguments are required: --scenarios", "--routes=r",
                "--agent=a", "--traffic-manager-port=2010", "--debug-checkpoint=d");
        refused(LeaderboardVersion.V1_0, "unrecognized arguments: --traffic-manager-port=2010 --debug-checkpoint=d",
                "--routes=r", "--agent=a", "--scenarios=s", "--traffic-manager-port=2010", "--debug-checkpoint=d");
    }

    @Test
    void prefixesValuesAndTypesAreCheckedInArgparsesOrder() {
        refused(LeaderboardVersion.V2_0, "ambiguous option: --route=3 could match --routes, --routes-subset",
                "--routes=r", "-a", "a", "--route=3");
        refused(LeaderboardVersion.V2_0, "argument --port: expected one argument", "--routes=r", "-a", "a", "--port",
                "--debug=1");
        refused(LeaderboardVersion.V2_0, "argument --port: invalid int value: 'x2000'", "--routes=r", "-aa",
                "--port=x2000");
        refused(LeaderboardVersion.V1_0, "argument --repetitions: invalid int value: 'three'", "--routes=r", "-a=a",
                "--scenarios", "s", "--repetitions", "three");
        refused(LeaderboardVersion.V2_0, "argument --timeout: invalid float value: '1.5d'", "--routes", "r",
                "--agent", "a", "--timeout", "1.5d");
        refused(LeaderboardVersion.V2_0, "unrecognized arguments: extra -- --port=1", "--routes=r", "--agent=a",
                "extra", "--", "--port=1");
        refused(LeaderboardVersion.V2_0, "argument --port: invalid int value: 'x'", "--port=x", "--bogus");
        refused(LeaderboardVersion.V2_0, "argument -h/--help: ignored explicit argument '3'", "--help=3");
    }

    @Test
    void helpPrintsTheUsageAndExitsZero() {
        assertThat(parse(LeaderboardVersion.V1_0, "-h")).isEqualTo(new EvaluatorArgparse.Exit(0, USAGE_1_0, ""));
    }

    @Test
    void theValuesAreArgparsesWithTheirDefaults() {
        assertThat(parse(LeaderboardVersion.V2_0, "--routes=r", "--agent=a", "--rep= 3", "--time=1e3",
                "--resume=False", "--check=c", "--port=+2_000")).isEqualTo(new EvaluatorArgparse.Parsed(Map.ofEntries(
                        Map.entry("agent", "a"), Map.entry("agent_config", ""), Map.entry("checkpoint", "c"),
                        Map.entry("debug", "0"), Map.entry("debug_checkpoint", "./live_results.txt"),
                        Map.entry("host", "localhost"), Map.entry("port", "2000"), Map.entry("record", ""),
                        Map.entry("repetitions", "3"), Map.entry("resume", "False"), Map.entry("routes", "r"),
                        Map.entry("routes_subset", ""), Map.entry("timeout", "1000.0"), Map.entry("track", "SENSORS"),
                        Map.entry("traffic_manager_port", "8000"), Map.entry("traffic_manager_seed", "0"))));
        assertThat(parse(LeaderboardVersion.V1_0, "--routes=r", "--agent=a", "--scen=s", "--port=x", "--resume=",
                "--record=it's")).isEqualTo(new EvaluatorArgparse.Parsed(Map.ofEntries(
                        Map.entry("agent", "a"), Map.entry("agent_config", ""),
                        Map.entry("checkpoint", "./simulation_results.json"), Map.entry("debug", "0"),
                        Map.entry("host", "localhost"), Map.entry("port", "x"), Map.entry("record", "it's"),
                        Map.entry("repetitions", "1"), Map.entry("resume", ""), Map.entry("routes", "r"),
                        Map.entry("routes_subset", ""), Map.entry("scenarios", "s"), Map.entry("timeout", "60.0"),
                        Map.entry("track", "SENSORS"), Map.entry("trafficManagerPort", "8000"),
                        Map.entry("trafficManagerSeed", "0"))));
    }

    @Test
    void whatPodRuntimePassesEachVersionIsAccepted() {
        assertThat(parse(LeaderboardVersion.V1_0, "--port=2000", "--trafficManagerPort=2010", "--agent=a",
                "--agent-config=", "--track=MAP", "--routes=r", "--scenarios=s", "--routes-subset=1-4",
                "--repetitions=1", "--resume=1", "--checkpoint=c", "--record=")).isInstanceOf(EvaluatorArgparse.Parsed.class);
        assertThat(parse(LeaderboardVersion.V2_0, "--port=2000", "--traffic-manager-port=2010", "--agent=a",
                "--agent-config=", "--track=MAP", "--routes=r", "--routes-subset=0-3", "--repetitions=1",
                "--checkpoint=c", "--record=", "--debug-checkpoint=d")).isInstanceOf(EvaluatorArgparse.Parsed.class);
    }

    @Test
    void theUsageWrapsAtColumnsAsArgparseDoes() {
        String wide = ((EvaluatorArgparse.Exit) EvaluatorArgparse.of(LeaderboardVersion.V2_0)
                .parse(PROG, List.of("-h"), Map.of("COLUMNS", "200"))).stdout();
        assertThat(wide.lines()).hasSize(3).first().asString().endsWith("[--debug DEBUG] [--record RECORD]");
        assertThat(EvaluatorArgparse.repr("it's")).isEqualTo("\"it's\"");
        assertThat(EvaluatorArgparse.repr("a\\b'\"\n")).isEqualTo("'a\\\\b\\'\"\\n'");
    }
}
