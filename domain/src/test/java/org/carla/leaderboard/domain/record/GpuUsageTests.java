package org.carla.leaderboard.domain.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.List;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.junit.jupiter.api.Test;

class GpuUsageTests {

    private static final Instant START = Instant.parse("2026-11-20T10:00:00Z");
    private static final SubmissionIdentity SUBMISSION = new SubmissionIdentity(7, 1, 2077, 1001, "Team", "leaderboard-20",
            "SENSORS");

    private static Instant at(double hours) {
        return START.plusMillis((long) (hours * 3_600_000));
    }

    private static ContainerOutcome ended(String name, double hours) {
        return new ContainerOutcome(name, 0, 0, "Completed", at(hours));
    }

    private static JobFinished finished(Instant startedAt, Instant jobEnd, int pairs, List<ContainerOutcome> containers) {
        return JobFinished.of(SUBMISSION, 1, "team-sensors-7-r1", JobFinished.Outcome.SUCCEEDED, null, pairs, startedAt,
                jobEnd, containers, at(10));
    }

    @Test
    void fourPairsOnAFourGpuNodeEndingTogetherCostFourGpusForTheRunsLength() {
        var containers = List.of(ended("agent-1", 2), ended("simulator-1", 2), ended("agent-2", 2),
                ended("simulator-2", 2), ended("agent-3", 2), ended("simulator-3", 2), ended("agent-4", 2),
                ended("simulator-4", 2), ended("logcopy", 2.01));

        assertThat(GpuUsage.ofRun(finished(START, at(2.01), 4, containers), 4)).isCloseTo(8.0, within(1e-9));
    }

    @Test
    void eachPairCountsItsShareUntilItsOwnEnd() {
        // g5.12xlarge, 4 pairs: one GPU each; pairs end after 1, 2, 3 and 4 hours.
        var containers = List.of(ended("agent-1", 1), ended("simulator-1", 0.9), ended("agent-2", 1.5),
                ended("simulator-2", 2), ended("agent-3", 3), ended("simulator-3", 3), ended("agent-4", 4),
                ended("simulator-4", 4));

        assertThat(GpuUsage.ofRun(finished(START, at(4), 4, containers), 4)).isCloseTo(1 + 2 + 3 + 4, within(1e-9));
    }

    @Test
    void oneWorkerPairOnAFourGpuNodeHoldsAllFourGpus() {
        var containers = List.of(ended("agent-1", 0.5), ended("simulator-1", 0.5));

        assertThat(GpuUsage.ofRun(finished(START, at(0.5), 1, containers), 4)).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void aPairWithoutAnEndOfItsOwnEndsWithTheJob() {
        // The deadline stopped the Job after 3 h; pair 2's containers were still running (no finish time).
        var containers = List.of(ended("agent-1", 1), ended("simulator-1", 1),
                new ContainerOutcome("agent-2", 1, null, null, null), new ContainerOutcome("simulator-2", 1, null, null));

        assertThat(GpuUsage.ofRun(finished(START, at(3), 2, containers), 4)).isCloseTo(2 * 1 + 2 * 3, within(1e-9));
    }

    @Test
    void aContainerFinishTimeAfterTheJobsEndIsCappedAtIt() {
        var containers = List.of(ended("agent-1", 5), ended("simulator-1", 5));

        assertThat(GpuUsage.ofRun(finished(START, at(2), 1, containers), 1)).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void aRunOfSeveralPodsCountsEveryPodsWholeTimeOnItsNodeReplacedOnesIncluded() {
        // 2 pods x 1 pair on g5.xlarge (1 GPU). Index 0 lost its node after 1 h, its replacement started 0.5 h later
        // and ran 2 h; index 1 ran 3 h; the Job ended at 3.5 h. The pair's own end (agent-1 at 0.2 h) is not what
        // was paid for: each pod held its node until it ended.
        var pods = List.of(new JobFinished.PodSpan(0, "r1-0-a", START, at(1)),
                new JobFinished.PodSpan(0, "r1-0-b", at(1.5), null),
                new JobFinished.PodSpan(1, "r1-1-c", START, at(3)),
                new JobFinished.PodSpan(1, "r1-1-d", null, at(3.2)));
        var event = JobFinished.of(SUBMISSION, 1, "team-sensors-7-r1", JobFinished.Outcome.SUCCEEDED, null, 1, START,
                at(3.5), List.of(ended("agent-1", 0.2).inPod(0), ended("simulator-1", 0.2).inPod(0)), pods, at(10));

        assertThat(GpuUsage.ofRun(event, 1)).isCloseTo(1 + 2 + 3, within(1e-9));
    }

    @Test
    void theReplacementsOfARunOfOnePodKeepThePairsShares() {
        var pods = List.of(new JobFinished.PodSpan(null, "r1-a", START, at(1)),
                new JobFinished.PodSpan(null, "r1-b", at(1.5), null));
        var event = JobFinished.of(SUBMISSION, 1, "team-sensors-7-r1", JobFinished.Outcome.SUCCEEDED, null, 1, START,
                at(3), List.of(ended("agent-1", 2), ended("simulator-1", 2)), pods, at(10));

        assertThat(GpuUsage.ofRun(event, 4)).isCloseTo(4 * 2, within(1e-9));
    }

    @Test
    void aRunWhosePodNeverRanUsedNoGpu() {
        assertThat(GpuUsage.ofRun(finished(null, at(1), 4, List.of()), 4)).isZero();
    }

    @Test
    void withoutTheJobsEndThePairsWithoutEndsStopAtTheEventsTime() {
        var run = finished(START, null, 1, List.of());

        assertThat(GpuUsage.ofRun(run, 2)).isCloseTo(2 * 10.0, within(1e-9));
    }

    @Test
    void anEndBeforeTheStartCountsNothing() {
        assertThat(GpuUsage.hours(START, List.of(at(-1), at(1)), 2)).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void aRunningRunHasUsedEveryGpuSinceItsPodStarted() {
        assertThat(GpuUsage.soFar(START, at(1.5), 4)).isCloseTo(6.0, within(1e-9));
        assertThat(GpuUsage.soFar(null, at(1.5), 4)).isZero();
    }

    @Test
    void aRunOfSeveralPodsCostsEachPodsRunningTimeOnItsNodesGpusReplacedPodsIncluded() {
        // Index 0 on a 1-GPU node interrupted after 1 h, its replacement ran from 1.5 h to 3 h; index 1 ran 0.5 h to
        // 2 h; index 2 waited for a node until 2.5 h and still runs at 4 h.
        var pods = List.of(new GpuUsage.PodTime(START, at(1), 1), new GpuUsage.PodTime(at(1.5), at(3), 1),
                new GpuUsage.PodTime(at(0.5), at(2), 1), new GpuUsage.PodTime(at(2.5), null, 1));

        assertThat(GpuUsage.overPods(pods, at(4))).isCloseTo(1 + 1.5 + 1.5 + 1.5, within(1e-9));
    }

    @Test
    void aPodHoldsEveryGpuOfItsNodeAndAPodThatNeverRanCostsNothing() {
        var pods = List.of(new GpuUsage.PodTime(START, at(2), 4), new GpuUsage.PodTime(null, null, 4));

        assertThat(GpuUsage.overPods(pods, at(5))).isCloseTo(8.0, within(1e-9));
        assertThatThrownBy(() -> new GpuUsage.PodTime(START, at(1), 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anInstanceWithoutGpusIsRefused() {
        assertThatThrownBy(() -> GpuUsage.hours(START, List.of(at(1)), 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
