package org.carla.leaderboard.localstack.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.carla.leaderboard.localstack.run.ChaosPlan.Kind;
import org.carla.leaderboard.localstack.run.ChaosPlan.Outage;
import org.junit.jupiter.api.Test;

/** The chaos run's plan (no server): what it takes down, how often, when, and the same plan from the same seed. */
class ChaosPlanTests {

    private static final Duration WINDOW = Duration.ofSeconds(120);

    @Test
    void theSameSeedMakesTheSamePlanAndAnotherSeedAnother() {
        assertThat(ChaosPlan.of(42, WINDOW)).isEqualTo(ChaosPlan.of(42, WINDOW));
        assertThat(ChaosPlan.of(42, WINDOW).outages()).isNotEqualTo(ChaosPlan.of(43, WINDOW).outages());
    }

    @Test
    void everyServiceIsKilledTwiceEveryServerTakenDownOnceAndEvalAiFailsTwice() {
        for (long seed = 0; seed < 50; seed++) {
            var plan = ChaosPlan.of(seed, WINDOW);
            for (String service : ChaosPlan.SERVICES) {
                assertThat(plan.of(service)).hasSize(2).allMatch(outage -> outage.kind() == Kind.KILLED);
            }
            for (String server : ChaosPlan.SERVERS) {
                assertThat(plan.of(server)).singleElement()
                        .satisfies(outage -> assertThat(outage.kind()).isIn(Kind.KILLED, Kind.FROZEN));
            }
            assertThat(plan.of(ChaosPlan.EVALAI)).hasSize(2).allSatisfy(outage -> assertThat(outage.kind())
                    .isIn(Kind.FAILING, Kind.THROTTLING, Kind.HANGING, Kind.REFUSING));
            assertThat(plan.outages()).hasSize(11).allSatisfy(outage -> {
                assertThat(outage.at()).isBetween(ChaosPlan.START, WINDOW);
                assertThat(outage.lasting()).isPositive();
            });
            assertThat(plan.outages()).isSortedAccordingTo(java.util.Comparator.comparing(Outage::at));
        }
    }

    @Test
    void theWindowGrowsWithTheSubmissions() {
        assertThat(ChaosPlan.window(4)).isEqualTo(Duration.ofSeconds(60));
        assertThat(ChaosPlan.window(20)).isEqualTo(Duration.ofSeconds(240));
        assertThatThrownBy(() -> ChaosPlan.of(1, Duration.ofSeconds(10))).hasMessageContaining("at least");
    }

    @Test
    void aRepeatedFinalUpdateIsReachedOnceAndAFinalLeftAndEnteredAgainTwice() {
        assertThat(ChaosVerdict.finalsEntered(List.of("submitted", "running", "partially_evaluated", "finished",
                "finished"))).containsExactly("FINISHED");
        assertThat(ChaosVerdict.finalsEntered(List.of("submitted", "running", "failed", "resuming", "running",
                "finished"))).containsExactly("FAILED", "FINISHED");
        assertThat(ChaosVerdict.finalsEntered(List.of("running", "cancelled", "partially_evaluated", "cancelled")))
                .containsExactly("CANCELLED", "CANCELLED");
        assertThat(ChaosVerdict.expectedFinals(Scenario.RESUME)).containsExactly("FAILED", "FINISHED");
        assertThat(ChaosVerdict.expectedFinals(Scenario.CANCEL)).containsExactly("CANCELLED");
    }

    @Test
    void theChaosOptionsAreCheckedAndASeedIsAlwaysKnown() {
        var options = LocalRunMain.Options.parse(new String[] {"--scenario", "mixed", "--submissions", "20",
                "--chaos", "--seed", "7"});
        assertThat(options.chaos()).isTrue();
        assertThat(options.seed()).isEqualTo(7);
        assertThat(options.timeout()).isEqualTo(Duration.ofMinutes(10).plus(Duration.ofSeconds(480)));
        assertThat(LocalRunMain.Options.parse(new String[] {"--chaos", "--work-dir", Path.of("x").toString()}).seed())
                .isNotNegative();
        assertThatThrownBy(() -> LocalRunMain.Options.parse(new String[] {"--seed", "7"}))
                .hasMessageContaining("needs --chaos");
        assertThatThrownBy(() -> LocalRunMain.Options.parse(new String[] {"--chaos", "--keep"}))
                .hasMessageContaining("do not go together");
        assertThatThrownBy(() -> LocalRunMain.Options.parse(new String[] {"--chaos", "--seed", "x"}))
                .hasMessageContaining("whole number");
    }
}
