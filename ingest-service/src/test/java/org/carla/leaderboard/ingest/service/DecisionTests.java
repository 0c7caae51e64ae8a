package org.carla.leaderboard.ingest.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DecisionTests {

    @ParameterizedTest
    @EnumSource(value = EvalAiStatus.class, names = { "CANCELLED", "RESUMING" }, mode = EnumSource.Mode.EXCLUDE)
    void everyOtherStatusOnAnOpenTrackLaunches(EvalAiStatus status) {
        assertThat(Decision.of(status, false, () -> false)).isEqualTo(Decision.LAUNCH);
    }

    @Test
    void resumingLaunchesWithResume() {
        assertThat(Decision.of(EvalAiStatus.RESUMING, false, () -> false)).isEqualTo(Decision.RESUME);
        assertThat(Decision.of(EvalAiStatus.RESUMING, true, () -> true)).isEqualTo(Decision.RESUME);
    }

    @Test
    void cancelledIsNeverLaunchedAndTheGateIsNotAsked() {
        var asked = new AtomicInteger();
        assertThat(Decision.of(EvalAiStatus.CANCELLED, true, () -> asked.incrementAndGet() > 0))
                .isEqualTo(Decision.CANCELLED);
        assertThat(asked).hasValue(0);
        assertThat(Decision.CANCELLED.notLaunchedReason()).isEqualTo(NotLaunched.Reason.CANCELLED);
    }

    @Test
    void gatedTrackNeedsTheQualifier() {
        assertThat(Decision.of(EvalAiStatus.SUBMITTED, true, () -> false)).isEqualTo(Decision.NOT_ALLOWED);
        assertThat(Decision.of(EvalAiStatus.RESUMING, true, () -> false)).isEqualTo(Decision.NOT_ALLOWED);
        assertThat(Decision.of(EvalAiStatus.SUBMITTED, true, () -> true)).isEqualTo(Decision.LAUNCH);
        assertThat(Decision.NOT_ALLOWED.notLaunchedReason()).isEqualTo(NotLaunched.Reason.NOT_ALLOWED);
    }

    @Test
    void openTrackDoesNotAskTheGate() {
        var asked = new AtomicInteger();
        Decision.of(EvalAiStatus.SUBMITTED, false, () -> asked.incrementAndGet() > 0);
        assertThat(asked).hasValue(0);
    }

    @Test
    void aLaunchHasNoNotLaunchedReason() {
        assertThatThrownBy(Decision.LAUNCH::notLaunchedReason).isInstanceOf(IllegalStateException.class);
    }
}
