package org.carla.leaderboard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

class ChecksTests {

    private static final Instant STARTED = Instant.parse("2026-11-27T10:00:00Z");
    /** A run that has lasted an hour so far. */
    private static final Clock AN_HOUR_IN = Clock.fixed(STARTED.plus(Duration.ofHours(1)), ZoneOffset.UTC);

    private final Checks checks = new Checks(AN_HOUR_IN, STARTED);

    @Test
    void noSampleOfWhatWasSentIsAReason() {
        checks.samples("3a", "submissions with their Job", new Samples(), 20);

        assertThat(checks.reasons()).containsExactly("3a: submissions with their Job: 0 of 20");
    }

    @Test
    void aCountShortOfWhatWasSentIsAReason() {
        checks.count("3b", "submissions with their Job", 999, 1000);

        assertThat(checks.reasons()).containsExactly("3b: submissions with their Job: 999 of 1000");
    }

    @Test
    void aDurationFromAnUnsetClockIsAReason() {
        // 3c's span when no Job came: 0 µs (no Job) minus an epoch time in µs.
        checks.durationMs("3c", "the burst's span", (0 - 1_795_768_354_000_000L) / 1000.0);
        checks.durationMs("3c", "a rate's span", Double.NaN);

        assertThat(checks.reasons()).hasSize(2);
        assertThat(checks.reasons().get(0)).startsWith("3c: the burst's span is -1795768354000 ms, not a duration");
        assertThat(checks.reasons().get(1)).startsWith("3c: a rate's span is - ms, not a duration");
    }

    @Test
    void aDurationLongerThanTheRunSoFarIsAReason() {
        checks.durationMs("1b", "end → exited", 3_600_000);
        checks.durationMs("1b", "end → exited", 3_600_001);

        assertThat(checks.reasons()).singleElement().asString()
                .isEqualTo("1b: end → exited is 3600001 ms, not a duration within this run's 3600 s");
    }

    @Test
    void everySampleMustBeADurationWithinTheRun() {
        var samples = new Samples();
        samples.add(12);
        samples.add(-5);

        checks.samples("1a", "pairs", samples, 2);

        assertThat(checks.reasons()).singleElement().asString()
                .startsWith("1a: pairs (smallest) is -5.00 ms, not a duration within this run's");
    }

    @Test
    void nothingReadIsAReasonAndAFullMeasurementIsNone() {
        checks.positive("4c", "resident memory", Double.NaN);
        checks.positive("6b", "S3 requests", 0);
        var fine = new Checks(AN_HOUR_IN, STARTED);
        var samples = new Samples();
        samples.add(0);
        samples.add(40);
        fine.samples("3a", "submissions", samples, 2);
        fine.count("5a", "files uploaded", 50, 50);
        fine.positive("4b", "resident memory", 58.2);
        fine.that("6d", true, "the run ended FINISHED");

        assertThat(checks.reasons()).containsExactly("4c: resident memory is -, nothing measured",
                "6b: S3 requests is 0.00, nothing measured");
        assertThat(fine.reasons()).isEmpty();
    }
}
