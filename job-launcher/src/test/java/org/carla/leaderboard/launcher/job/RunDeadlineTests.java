package org.carla.leaderboard.launcher.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

class RunDeadlineTests {

    private static final long DEADLINE = 172_800;
    private static final Instant JOB_START = Instant.parse("2026-11-21T10:00:00Z");

    @Test
    void aJobIsCreatedWithItsDeadlinePlusTheLongestWaitForCapacity() {
        assertThat(RunDeadline.initial(DEADLINE, Duration.ofHours(12))).isEqualTo(DEADLINE + 43_200);
    }

    @Test
    void oncePodRunsTheRunGetsItsWholeDeadlineFromThePodsStart() {
        Instant podStart = JOB_START.plus(Duration.ofHours(3));

        long deadline = RunDeadline.rebased(JOB_START, podStart, DEADLINE);

        assertThat(JOB_START.plusSeconds(deadline)).isEqualTo(podStart.plusSeconds(DEADLINE));
    }

    @Test
    void aPartOfASecondOfWaitingIsCountedWholeSoTheRunNeverLosesTime() {
        assertThat(RunDeadline.rebased(JOB_START, JOB_START.plusMillis(1_200), DEADLINE)).isEqualTo(DEADLINE + 2);
    }

    @Test
    void noWaitWhenThePodStartedWithTheJobOrTheJobsStartIsUnknown() {
        assertThat(RunDeadline.rebased(JOB_START, JOB_START, DEADLINE)).isEqualTo(DEADLINE);
        assertThat(RunDeadline.rebased(JOB_START, JOB_START.minusSeconds(5), DEADLINE)).isEqualTo(DEADLINE);
        assertThat(RunDeadline.rebased(null, JOB_START, DEADLINE)).isEqualTo(DEADLINE);
    }
}
