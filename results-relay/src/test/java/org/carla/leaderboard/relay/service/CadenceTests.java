package org.carla.leaderboard.relay.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;

import org.junit.jupiter.api.Test;

class CadenceTests {

    private static final Instant SUBMITTED = Instant.parse("2026-11-27T10:00:00.300Z");
    private static final Cadence EVERY_MINUTE = new Cadence(Duration.ofSeconds(60));

    @Test
    void ticksEverySixtiethOfTheIntervalButNeverMoreOftenThanASecond() {
        assertThat(EVERY_MINUTE.tick()).isEqualTo(Duration.ofSeconds(1));
        assertThat(new Cadence(Duration.ofMinutes(5)).tick()).isEqualTo(Duration.ofSeconds(5));
        assertThat(new Cadence(Duration.ofSeconds(4)).tick()).isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> new Cadence(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRunsSubmissionIsItsFirstAskSoItIsFirstAskedAWholeIntervalLater() {
        Instant first = EVERY_MINUTE.firstAsk(SUBMITTED, SUBMITTED.plusSeconds(5));

        assertThat(EVERY_MINUTE.due(first, SUBMITTED.plusMillis(59_900))).isFalse();
        assertThat(EVERY_MINUTE.due(first, SUBMITTED.plusSeconds(60))).isTrue();
        assertThat(EVERY_MINUTE.firstAsk(null, SUBMITTED)).as("unknown: from now").isEqualTo(SUBMITTED.plusMillis(500));
        assertThat(EVERY_MINUTE.firstAsk(SUBMITTED.plusSeconds(9), SUBMITTED)).as("a clock behind EvalAI's")
                .isEqualTo(SUBMITTED.plusMillis(500));
    }

    /**
     * A run's hour on a one-second tick: its submission and 59 asks, 60 in the hour, never more than 60.5 s after the
     * last one.
     */
    @Test
    void anHourOfARunOnItsTickAsksAboutItOnceAMinute() {
        var asks = new ArrayList<Instant>();
        Instant last = EVERY_MINUTE.firstAsk(SUBMITTED, SUBMITTED);
        for (Instant tick = Instant.parse("2026-11-27T10:00:00.800Z"); tick.isBefore(SUBMITTED.plusSeconds(3600));
                tick = tick.plus(EVERY_MINUTE.tick())) {
            if (EVERY_MINUTE.due(last, tick)) {
                asks.add(tick);
                last = tick;
            }
        }

        assertThat(asks).hasSize(59);
        Instant before = SUBMITTED;
        for (Instant ask : asks) {
            assertThat(Duration.between(before, ask)).isBetween(Duration.ofMillis(59_500), Duration.ofMillis(60_500));
            before = ask;
        }
    }
}
