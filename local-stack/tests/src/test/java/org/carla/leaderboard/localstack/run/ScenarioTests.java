package org.carla.leaderboard.localstack.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The scenarios by name on the command line, the plans they make, and what the odd team name holds. */
class ScenarioTests {

    @Test
    void everyScenarioIsNamedByItsLabelOrItsConstant() {
        for (Scenario scenario : Scenario.values()) {
            assertThat(Scenario.of(scenario.label())).isEqualTo(scenario);
            assertThat(Scenario.of(scenario.name())).isEqualTo(scenario);
        }
        assertThat(Scenario.of("cancel-pending")).isEqualTo(Scenario.CANCEL_PENDING);
        assertThatThrownBy(() -> Scenario.plan("sideways", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown scenario sideways")
                .hasMessageContaining("forged-links, claimed, spot, pods, mixed, all");
    }

    @Test
    void mixedStaysTheFourThatHoldNoNodeAndAllCyclesThroughEveryScenario() {
        assertThat(Scenario.plan("mixed", 5)).containsExactly(Scenario.HAPPY, Scenario.CRASH, Scenario.CANCEL,
                Scenario.RESUME, Scenario.HAPPY);
        assertThat(Scenario.plan("all", Scenario.values().length)).containsExactly(Scenario.values());
        assertThat(Scenario.plan("killed", 2)).containsExactly(Scenario.KILLED, Scenario.KILLED);
        assertThat(Scenario.plan("mixed", 8)).noneMatch(Scenario::waitsForCapacity);
    }

    @Test
    void theCommandLineTakesEveryScenarioAndItsHelpNamesThem() {
        var options = LocalRunMain.Options.parse(new String[] {"--scenario", "all"});
        assertThat(options.submissions()).isEqualTo(Scenario.values().length);
        assertThat(LocalRunMain.Options.parse(new String[] {"--scenario", "forged-status"}).submissions()).isEqualTo(2);
        String usage = LocalRunMain.usage();
        for (Scenario scenario : Scenario.values()) {
            assertThat(usage).contains(scenario.label() + ":");
        }
        assertThat(usage).contains(LocalRunConfig.CAPACITY_DEADLINE.toSeconds() + " s");
    }

    @Test
    void theTeamNameScenarioCarriesWhatEvalAiAllowsInATeamName() {
        String name = Scenario.TEAM_NAME.teamName(3);
        for (String odd : List.of("\u0000", "\uFFFE", "\uFFFF", "\uD800", "$(", "`", ";", "\"", "'")) {
            assertThat(name).contains(odd);
        }
        assertThat(Arrays.stream(Scenario.values()).filter(s -> s != Scenario.TEAM_NAME))
                .allSatisfy(s -> assertThat(s.teamName(1)).isEqualTo("Team 1 (" + s.label() + ")"));
    }
}
