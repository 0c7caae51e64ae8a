package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/** Pods that request a GPU wait Pending for capacity, as on a GPU node group; the Job's deadline runs meanwhile. */
class GpuCapacityTests extends LocalJobRunnerFixture {

    @Override
    LocalJobRunnerOptions options() {
        return LocalJobRunnerOptions.builder(client, workRoot).backoff(Duration.ofMillis(20), Duration.ofMillis(200))
                .profile(ImageProfile.forImages("registry\\.local/test-program:.*")
                        .withCommand("/usr/local/bin/program", programArgv()))
                .profile(ImageProfile.forImages("registry\\.local/host-tools:.*"))
                .gpuCapacity(1).build();
    }

    @Test
    void aGpuPodWaitsUnschedulableUntilANodeFreesAndPodsArePlacedInCreationOrder() {
        create(job("first", 0, null, List.of(), List.of(gpu(host("sim", "sleep", "300")))));
        awaitRunning("first");
        create(job("second", 0, null, List.of(), List.of(gpu(host("sim", "sleep", "300")))));
        // third's pod is created once second's waits: the controller creates each Job's pod on its own, in no order
        Pod waiting = awaitPod("second", pod -> condition(pod, "PodScheduled") != null);
        create(job("third", 0, null, List.of(), List.of(gpu(host("sim", "true")))));
        create(job("no-gpu", 0, null, List.of(), List.of(host("main", "true"))));

        awaitCondition("no-gpu", "Complete");
        assertThat(waiting.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(condition(waiting, "PodScheduled").getStatus()).isEqualTo("False");
        assertThat(condition(waiting, "PodScheduled").getReason()).isEqualTo("Unschedulable");
        assertThat(condition(waiting, "PodScheduled").getMessage())
                .isEqualTo("0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
        assertThat(waiting.getSpec().getNodeName()).isNull();
        assertThat(waiting.getStatus().getStartTime()).isNull();
        assertThat(waiting.getStatus().getContainerStatuses()).isEmpty();
        // The Job is active from its creation: its clock runs while the pod waits.
        assertThat(jobs().withName("second").get().getStatus().getStartTime()).isNotNull();
        assertThat(jobs().withName("second").get().getStatus().getActive()).isEqualTo(1);

        jobs().withName("first").withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();

        awaitRunning("second");
        Pod placed = onlyPod(jobs().withName("second").get());
        assertThat(condition(placed, "PodScheduled").getStatus()).isEqualTo("True");
        assertThat(placed.getSpec().getNodeName()).isEqualTo(PodObjects.NODE_NAME);
        assertThat(placed.getStatus().getStartTime()).isNotNull();
        // second holds the node for as long as the test says (a loaded machine's timing cannot place third early)
        assertThat(condition(onlyPod(jobs().withName("third").get()), "PodScheduled").getStatus()).isEqualTo("False");
        jobs().withName("second").withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        awaitCondition("third", "Complete");
    }

    @Test
    void aLongWaitForCapacityEndsInDeadlineExceededCountedFromTheJobsStart() {
        runner.gpuCapacity(0);
        create(job("starved", 0, 3L, List.of(), List.of(gpu(host("sim", "true")))));

        Job failed = awaitCondition("starved", "Failed");

        assertThat(condition(failed, "Failed").getReason()).isEqualTo("DeadlineExceeded");
        assertThat(Duration.between(Instant.parse(failed.getStatus().getStartTime()),
                Instant.parse(condition(failed, "Failed").getLastTransitionTime()))).isGreaterThanOrEqualTo(
                        Duration.ofSeconds(2));
        // Never placed: the controller deleted the pod; nothing ran.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.pods().withLabel("job-name", "starved").list().getItems().isEmpty());
    }

    @Test
    void aDeadlinePatchedOnALiveJobCountsFromItsStartAndAddedCapacityPlacesTheWaitingPod() {
        runner.gpuCapacity(0);
        create(job("patched", 0, 3600L, List.of(), List.of(gpu(host("sim", "sleep", "300")))));
        create(job("placed-later", 0, null, List.of(), List.of(gpu(host("sim", "true")))));
        awaitPod("patched", pod -> condition(pod, "PodScheduled") != null);

        // a patch, as the launcher moves the deadline: no resourceVersion to conflict with the runner's status writes
        jobs().withName("patched").patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE), "{\"spec\":{\"activeDeadlineSeconds\":3}}");

        Job failed = awaitCondition("patched", "Failed");
        assertThat(condition(failed, "Failed").getReason()).isEqualTo("DeadlineExceeded");
        assertThat(Duration.between(Instant.parse(failed.getStatus().getStartTime()),
                Instant.parse(condition(failed, "Failed").getLastTransitionTime()))).isLessThan(Duration.ofMinutes(30));
        runner.gpuCapacity(1);
        awaitCondition("placed-later", "Complete");
    }

    private void create(Job job) {
        client.batch().v1().jobs().resource(job).create();
    }

    private static Container gpu(Container container) {
        container.setResources(new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                .addToLimits("nvidia.com/gpu", new Quantity("1")).build());
        return container;
    }

    private Pod awaitPod(String job, java.util.function.Predicate<Pod> ready) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<Pod> pods = client.pods().withLabel("job-name", job).list().getItems();
            return pods.size() == 1 && pods.get(0).getStatus() != null && ready.test(pods.get(0));
        });
        return client.pods().withLabel("job-name", job).list().getItems().get(0);
    }

    private void awaitRunning(String job) {
        awaitPod(job, pod -> !pod.getStatus().getContainerStatuses().isEmpty() && pod.getStatus()
                .getContainerStatuses().stream().allMatch(s -> s.getState().getRunning() != null));
    }

    static PodCondition condition(Pod pod, String type) {
        return pod.getStatus().getConditions() == null ? null : pod.getStatus().getConditions().stream()
                .filter(c -> type.equals(c.getType())).findFirst().orElse(null);
    }
}
