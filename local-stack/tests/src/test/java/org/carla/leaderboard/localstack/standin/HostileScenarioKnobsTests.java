package org.carla.leaderboard.localstack.standin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Set;

import org.carla.leaderboard.localstack.run.LocalRunConfig;
import org.carla.leaderboard.localstack.run.Scenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local run's hostile scenarios ask the evaluator stand-in for actions it knows (an unknown one would end it with
 * exit 2, a scenario that tests nothing), and together they forge every status file and every file type e2e covers.
 */
class HostileScenarioKnobsTests {

    @TempDir
    Path temp;

    @Test
    void everyHostileScenarioNamesKnownActionsAndTogetherTheyCoverEveryStatusFileAndFileType() {
        var config = LocalRunConfig.demo(temp, temp);
        Set<HostileParticipant.Action> all = EnumSet.noneOf(HostileParticipant.Action.class);
        for (Scenario scenario : Scenario.values()) {
            var env = new HashMap<>(scenario.knobs(temp, "42", config, List.of("0", "1", "2", "3"),
                    "http://127.0.0.1:1/_standin/submissions/42"));
            var hostile = HostileParticipant.of(env, temp.resolve("logs/agent/agent1/agent_results.json"),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            assertThat(hostile.actions().isEmpty()).as(scenario.label()).isEqualTo(!scenario.hostile());
            if (scenario.hostile()) {
                assertThat(env.get(HostileParticipant.OUTSIDE))
                        .isEqualTo(Scenario.outsideDir(temp, "42").toString());
            }
            all.addAll(hostile.actions());
        }
        assertThat(all).contains(HostileParticipant.Action.FORGE_AGENT_DONE,
                HostileParticipant.Action.FORGE_SIMULATOR_DONE, HostileParticipant.Action.FORGE_CANCEL,
                HostileParticipant.Action.FORGE_LOGCOPY_DONE, HostileParticipant.Action.LOGCOPY_DONE_SYMLINK,
                HostileParticipant.Action.RESULTS_SYMLINK_OUTSIDE, HostileParticipant.Action.EVALAI_FIFO,
                HostileParticipant.Action.EVALAI_SYMLINK_OUTSIDE, HostileParticipant.Action.SCORE_NAN,
                HostileParticipant.Action.LOG_LINE_10MB, HostileParticipant.Action.WRITE_SIMULATOR_LOG,
                HostileParticipant.Action.LONG_S3_KEY);
    }
}
