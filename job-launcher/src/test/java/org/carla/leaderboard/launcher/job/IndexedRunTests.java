package org.carla.leaderboard.launcher.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.carla.leaderboard.domain.pod.JobLabels;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;

class IndexedRunTests {

    @Test
    void readsTheControllersCompletedIndexesAndNothingElse() {
        assertThat(IndexedRun.completedIndexes("0,2-4,7")).containsExactly(0, 2, 3, 4, 7);
        assertThat(IndexedRun.completedIndexes("1")).containsExactly(1);
        assertThat(IndexedRun.completedIndexes(null)).isEmpty();
        assertThat(IndexedRun.completedIndexes("3-1")).isEmpty();
        assertThat(IndexedRun.completedIndexes("1,x")).isEmpty();
        assertThat(IndexedRun.completedIndexes("-1")).isEmpty();
        assertThat(IndexedRun.completedIndexes("0-2147483647")).isEmpty();
    }

    @Test
    void theRemainingIndexesAreUnneededOnlyWhenNoneOfThemRanAndNoPodFailed() {
        var ended = pod(0, true);
        var waiting = pod(1, false);

        assertThat(IndexedRun.routesDoneBeforePodsRan(job(3, "0", 0), List.of(ended, waiting, pod(2, false))))
                .hasValueSatisfying(why -> assertThat(why).contains("[0]").contains("[1, 2]"));
        assertThat(IndexedRun.routesDoneBeforePodsRan(job(2, "0", 1), List.of(ended, waiting)))
                .as("a failed pod's routes went back to the ledger: its replacement is needed").isEmpty();
        assertThat(IndexedRun.routesDoneBeforePodsRan(job(2, "0", 0), List.of(ended, pod(1, true))))
                .as("index 1 runs, and may drive a route").isEmpty();
        assertThat(IndexedRun.routesDoneBeforePodsRan(job(2, null, 0), List.of(pod(0, true), waiting)))
                .as("no index ended").isEmpty();
        assertThat(IndexedRun.routesDoneBeforePodsRan(job(2, "0,1", 0), List.of(ended, pod(1, true)))).isEmpty();
        Job oneVisit = job(2, "0", 0);
        oneVisit.getSpec().setCompletionMode("NonIndexed");
        assertThat(IndexedRun.routesDoneBeforePodsRan(oneVisit, List.of(ended, waiting))).isEmpty();
    }

    private static Job job(int completions, String completed, int failed) {
        return new JobBuilder().withNewMetadata().withName("r1").endMetadata().withNewSpec()
                .withCompletionMode("Indexed").withCompletions(completions).withParallelism(completions).endSpec()
                .withNewStatus().withCompletedIndexes(completed).withFailed(failed == 0 ? null : failed).endStatus()
                .build();
    }

    private static Pod pod(int index, boolean ran) {
        var status = new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase(ran ? "Running" : "Pending");
        if (ran) {
            status.withStartTime("2026-12-02T10:00:00Z").addNewContainerStatus().withName("agent-1").withNewState()
                    .withNewRunning().withStartedAt("2026-12-02T10:00:05Z").endRunning().endState()
                    .endContainerStatus();
        }
        return new PodBuilder().withNewMetadata().withName("r1-" + index + "-abcde")
                .addToAnnotations(JobLabels.COMPLETION_INDEX, Integer.toString(index)).endMetadata()
                .withStatus(status.build()).build();
    }
}
