package org.carla.leaderboard.domain.evalai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.smallrye.config.SmallRyeConfigBuilder;

class EvalAiBudgetTests {

    private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");
    private static final Duration MINUTE = Duration.ofMinutes(1);

    @Test
    void aBurstIsSpreadOverTheNextMinutesNeverMoreThanTheShareInAnyMinute() {
        var budget = new EvalAiBudget(12, MINUTE, Clock.fixed(T0, ZoneOffset.UTC));
        var times = new ArrayList<Instant>();
        for (int call = 0; call < 30; call++) {
            times.add(budget.reserve(Duration.ofMinutes(5)).orElseThrow());
        }

        assertThat(times.subList(0, 12)).containsOnly(T0);
        assertThat(times.subList(12, 24)).containsOnly(T0.plus(MINUTE));
        assertThat(times.subList(24, 30)).containsOnly(T0.plus(MINUTE.multipliedBy(2)));
        assertThat(mostInAnyWindow(times, MINUTE)).isEqualTo(12);
    }

    @Test
    void aCallThatWouldWaitLongerThanItMayIsNotMadeNorCounted() {
        var budget = new EvalAiBudget(2, MINUTE, Clock.fixed(T0, ZoneOffset.UTC));
        assertThat(budget.tryAcquire()).isTrue();
        assertThat(budget.tryAcquire()).isTrue();

        assertThat(budget.tryAcquire()).isFalse();
        assertThat(budget.reserve(Duration.ofSeconds(59))).isEmpty();
        assertThat(budget.reserve(MINUTE)).contains(T0.plus(MINUTE));
        assertThatThrownBy(() -> budget.acquire(Duration.ofSeconds(1)))
                .isInstanceOf(EvalAiBudgetSpentException.class).hasMessageContaining("2 EvalAI calls per PT1M");
    }

    @Test
    void aCallIsCountedUntilAPeriodAfterItEndedSoEvalAiNeverSeesMoreThanTheShare() {
        // Its turn is T0; it reaches EvalAI and ends 10 s later (a late thread, a slow connection).
        var budget = new EvalAiBudget(1, MINUTE, new SteppingClock(T0, T0, T0.plusSeconds(10)));
        budget.finished(budget.acquire(Duration.ZERO));

        assertThat(budget.reserve(Duration.ofMinutes(5))).as("the next call waits a minute from when the last ended")
                .contains(T0.plusSeconds(70));
    }

    @Test
    void aTurnGivenWhileTheCallBeforeWasInFlightWaitsAPeriodFromThatCallsEnd() {
        var clock = new MovingClock(T0);
        var budget = new EvalAiBudget(1, MINUTE, clock);
        Instant first = budget.acquire(Duration.ZERO);
        Instant second = budget.reserve(Duration.ofMinutes(5)).orElseThrow();
        assertThat(second).as("given while the first is in flight").isEqualTo(T0.plus(MINUTE));
        clock.now = T0.plusSeconds(10);
        budget.finished(first);
        clock.now = T0.plus(MINUTE);

        assertThat(budget.confirm(second, T0.plus(Duration.ofMinutes(5)))).as("a minute from the first's end")
                .isEqualTo(T0.plusSeconds(70));
        assertThat(budget.confirm(T0.plusSeconds(70), T0.plus(Duration.ofMinutes(5)))).isEqualTo(T0.plusSeconds(70));
    }

    @Test
    void callsFreedByTheWindowSlidingGoAtOnce() {
        var clock = new MovingClock(T0);
        var budget = new EvalAiBudget(2, MINUTE, clock);
        budget.tryAcquire();
        clock.now = T0.plusSeconds(30);
        budget.tryAcquire();
        clock.now = T0.plusSeconds(60);

        assertThat(budget.available()).isEqualTo(1);
        assertThat(budget.tryAcquire()).as("the first call left the window").isTrue();
        assertThat(budget.available()).isZero();
        assertThat(budget.tryAcquire()).as("the second has not").isFalse();
        assertThat(budget.reserve(MINUTE)).contains(T0.plusSeconds(90));
    }

    @Test
    void noCallGoesBeforeEvalAisRetryAfter() {
        var clock = new MovingClock(T0);
        var budget = new EvalAiBudget(36, MINUTE, clock);
        budget.pause(Duration.ofSeconds(17));

        assertThat(budget.tryAcquire()).isFalse();
        assertThat(budget.reserve(MINUTE)).contains(T0.plusSeconds(17));
        clock.now = T0.plusSeconds(17);
        assertThat(budget.tryAcquire()).isTrue();
        assertThat(EvalAiBudget.retryAfter("17")).contains(Duration.ofSeconds(17));
        assertThat(EvalAiBudget.retryAfter("soon")).isEmpty();
        assertThat(EvalAiBudget.retryAfter(null)).isEmpty();
    }

    @Test
    void theServicesSharesTogetherStayUnderEvalAisThrottleOfTheirOneToken() {
        var config = new SmallRyeConfigBuilder().withMapping(EvalAiBudgetConfig.class).build()
                .getConfigMapping(EvalAiBudgetConfig.class);

        assertThat(config.per()).isEqualTo(EvalAiThrottle.PERIOD);
        assertThat(config.total()).isLessThan(EvalAiThrottle.REQUESTS);
        assertThat(config.resultsRelay()).as("a deadline day's relay: about 25 calls a minute").isGreaterThanOrEqualTo(25);
    }

    private static int mostInAnyWindow(List<Instant> times, Duration window) {
        int most = 0;
        for (Instant end : times) {
            int count = (int) times.stream().filter(t -> t.isAfter(end.minus(window)) && !t.isAfter(end)).count();
            most = Math.max(most, count);
        }
        return most;
    }

    /** Answers each of its instants once, in order, then the last one for ever. */
    private static final class SteppingClock extends MovingClock {
        private final java.util.Deque<Instant> instants;

        SteppingClock(Instant... instants) {
            super(instants[0]);
            this.instants = new java.util.ArrayDeque<>(List.of(instants));
        }

        @Override
        public synchronized Instant instant() {
            return instants.size() > 1 ? instants.pollFirst() : instants.peekFirst();
        }
    }

    private static class MovingClock extends Clock {
        Instant now;

        MovingClock(Instant now) {
            this.now = now;
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
