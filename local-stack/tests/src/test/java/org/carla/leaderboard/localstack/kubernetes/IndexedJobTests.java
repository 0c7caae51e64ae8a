package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.Watch;

/**
 * An Indexed Job ({@code completionMode: Indexed}, {@code completions} = {@code parallelism} = 2) as the Job controller
 * runs it: a pod per completion index, all at once, each with its index; a failed index replaced by a pod of that
 * index only; the Job complete once every index succeeded, failed as a whole. The containers are shells that wait for
 * a gate file the test creates, so each step is the test's.
 */
class IndexedJobTests extends LocalJobRunnerFixture {

    private static final String INDEX = PodObjects.COMPLETION_INDEX;

    /** Every pod of the namespace by name, as last seen (deleted ones included, with their final state). */
    private final Map<String, Pod> seen = new ConcurrentHashMap<>();
    private Watch watch;

    @BeforeEach
    void watchEveryPod() {
        watch = watchPods(pod -> seen.put(pod.getMetadata().getName(), pod));
    }

    @AfterEach
    void stopWatching() {
        watch.close();
    }

    @Test
    void runsAPodPerIndexAtOnceEachWithItsIndexAndCompletesWhenBothSucceeded() throws IOException {
        Path gate = workRoot.resolve("gate-pair");
        Container init = shell("index", "echo $JOB_COMPLETION_INDEX > $DATA/init-index");
        Container main = shell("main", "echo \"$JOB_COMPLETION_INDEX $HOSTNAME\" > $DATA/index; " + waitFor(gate));
        client.batch().v1().jobs().resource(indexed("pair", 2, 0, "Never", List.of(init), List.of(main))).create();

        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> runningPods("pair").size() == 2
                && Integer.valueOf(2).equals(jobs().withName("pair").get().getStatus().getReady()));
        Job running = jobs().withName("pair").get();
        assertThat(running.getStatus().getActive()).isEqualTo(2);
        assertThat(running.getStatus().getSucceeded()).isNull();
        assertThat(running.getStatus().getCompletedIndexes()).isNull();
        List<Pod> pods = pods("pair");
        assertThat(pods).extracting(pod -> pod.getMetadata().getAnnotations().get(INDEX)).containsExactlyInAnyOrder("0",
                "1");
        for (Pod pod : pods) {
            String index = pod.getMetadata().getAnnotations().get(INDEX);
            assertThat(pod.getMetadata().getLabels()).containsEntry(INDEX, index).containsEntry("job-name", "pair");
            assertThat(pod.getMetadata().getName()).matches("pair-" + index + "-[a-z0-9]{5}");
            assertThat(pod.getSpec().getHostname()).isEqualTo("pair-" + index);
            for (Container container : List.of(pod.getSpec().getInitContainers().get(0),
                    pod.getSpec().getContainers().get(0))) {
                EnvVar variable = container.getEnv().stream().filter(v -> v.getName().equals("JOB_COMPLETION_INDEX"))
                        .findFirst().orElseThrow();
                assertThat(variable.getValueFrom().getFieldRef().getFieldPath())
                        .isEqualTo("metadata.labels['batch.kubernetes.io/job-completion-index']");
            }
            // What the processes saw: the index's value, and the pod's host name as the runtime sets HOSTNAME.
            Path data = dataVolume("pair", pod);
            assertThat(Files.readString(data.resolve("init-index")).trim()).isEqualTo(index);
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(data.resolve("index")));
            assertThat(Files.readString(data.resolve("index")).trim()).isEqualTo(index + " pair-" + index);
        }

        Files.createFile(gate);

        Job done = awaitCondition("pair", "Complete");
        assertThat(done.getStatus().getSucceeded()).isEqualTo(2);
        // indexed_job_utils.go writes an interval of two indexes as "0,1" (three or more as "0-2").
        assertThat(done.getStatus().getCompletedIndexes()).isEqualTo("0,1");
        assertThat(done.getStatus().getActive()).isNull();
        assertThat(done.getStatus().getFailed()).isNull();
        assertThat(done.getStatus().getCompletionTime()).isNotNull();
        assertThat(done.getStatus().getConditions()).extracting(JobCondition::getType)
                .containsSubsequence("SuccessCriteriaMet", "Complete");
        assertThat(pods("pair")).hasSize(2).allSatisfy(pod -> assertThat(pod.getStatus().getPhase())
                .isEqualTo("Succeeded"));
    }

    @Test
    void aFailedIndexIsReplacedByAPodOfThatIndexOnlyAndASucceededIndexNeverRunsAgain() throws IOException {
        Path runs = Files.createDirectories(workRoot.resolve("runs-retry"));
        // Index 0 succeeds at once; index 1 fails the first time once the test says so, then succeeds.
        Container main = shell("main", "echo run >> " + runs + "/runs-$JOB_COMPLETION_INDEX; "
                + "if [ \"$JOB_COMPLETION_INDEX\" = 1 ] && [ ! -e " + runs + "/failed-once ]; then "
                + waitFor(runs.resolve("fail-now")) + "; touch " + runs + "/failed-once; exit 3; fi");
        client.batch().v1().jobs().resource(indexed("retry", 2, 3, "Never", List.of(), List.of(main))).create();

        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> "0".equals(jobs().withName("retry").get()
                .getStatus().getCompletedIndexes()));
        Job oneDone = jobs().withName("retry").get();
        assertThat(oneDone.getStatus().getSucceeded()).isEqualTo(1);
        assertThat(oneDone.getStatus().getActive()).isEqualTo(1);
        String firstOfIndex1 = podsOfIndex("retry", "1").get(0).getMetadata().getName();

        Files.createFile(runs.resolve("fail-now"));

        Job done = awaitCondition("retry", "Complete");
        assertThat(done.getStatus().getSucceeded()).isEqualTo(2);
        assertThat(done.getStatus().getFailed()).isEqualTo(1);
        assertThat(done.getStatus().getCompletedIndexes()).isEqualTo("0,1");
        assertThat(podsOfIndex("retry", "0")).as("index 0 succeeded: never run again").singleElement()
                .satisfies(pod -> assertThat(pod.getStatus().getPhase()).isEqualTo("Succeeded"));
        List<Pod> index1 = podsOfIndex("retry", "1");
        assertThat(index1).hasSize(2).allSatisfy(pod -> assertThat(pod.getMetadata().getName()).startsWith("retry-1-"));
        assertThat(index1).filteredOn(pod -> pod.getMetadata().getName().equals(firstOfIndex1)).singleElement()
                .satisfies(pod -> assertThat(pod.getStatus().getPhase()).isEqualTo("Failed"));
        assertThat(index1).filteredOn(pod -> !pod.getMetadata().getName().equals(firstOfIndex1)).singleElement()
                .satisfies(pod -> assertThat(pod.getStatus().getPhase()).isEqualTo("Succeeded"));
        assertThat(Files.readAllLines(runs.resolve("runs-0"))).hasSize(1);
        assertThat(Files.readAllLines(runs.resolve("runs-1"))).hasSize(2);
    }

    @Test
    void aFailureBeyondTheBackoffLimitDeletesThePodsOfEveryIndexAndFailsTheJob() throws IOException {
        Path gate = workRoot.resolve("gate-doomed");
        // Index 1 crashes once both pods run; OnFailure restarts it, and the restart reaches backoffLimit 1.
        Container main = shell("main", "if [ \"$JOB_COMPLETION_INDEX\" = 1 ]; then " + waitFor(gate) + "; exit 3; fi; "
                + "exec sleep 300");
        Job doomed = indexed("doomed", 2, 1, "OnFailure", List.of(), List.of(main));
        doomed.getSpec().getTemplate().getSpec().setTerminationGracePeriodSeconds(1L);
        client.batch().v1().jobs().resource(doomed).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> runningPods("doomed").size() == 2);
        Set<String> both = Set.copyOf(pods("doomed").stream().map(pod -> pod.getMetadata().getName()).toList());

        Files.createFile(gate);

        Job failed = awaitCondition("doomed", "Failed");
        assertThat(condition(failed, "Failed").getReason()).isEqualTo("BackoffLimitExceeded");
        assertThat(failed.getStatus().getConditions()).extracting(JobCondition::getType)
                .containsSubsequence("FailureTarget", "Failed");
        assertThat(failed.getStatus().getFailed()).as("every pod still going when the Job failed is failed")
                .isEqualTo(2);
        assertThat(failed.getStatus().getActive()).isNull();
        assertThat(failed.getStatus().getTerminating()).isZero();
        assertThat(failed.getStatus().getSucceeded()).isNull();
        assertThat(failed.getStatus().getCompletionTime()).isNull();
        assertThat(pods("doomed")).as("the controller deleted the active pod of each index").isEmpty();
        // The watch's events of the deletions may still be on their way.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(both).allSatisfy(name -> assertThat(
                seen.get(name).getMetadata().getDeletionTimestamp()).isNotNull()));
        assertThat(seen.values()).filteredOn(pod -> "doomed".equals(pod.getMetadata().getLabels().get("job-name")))
                .as("no replacement").hasSize(2);
        assertThat(runner.processes()).isEmpty();
    }

    @Test
    void aLostNodeReplacesOnlyThePodOfItsIndex() throws IOException {
        Path gate = workRoot.resolve("gate-lost");
        client.batch().v1().jobs().resource(indexed("lost", 2, 3, "Never", List.of(),
                List.of(shell("main", waitFor(gate))))).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> runningPods("lost").size() == 2);
        String index0 = podsOfIndex("lost", "0").get(0).getMetadata().getName();
        String lostPod = podsOfIndex("lost", "1").get(0).getMetadata().getName();

        assertThat(runner.loseNode("lost", 7)).as("no pod of index 7").isFalse();
        assertThat(runner.loseNode("lost", 1)).isTrue();

        await().atMost(Duration.ofSeconds(30)).until(() -> runningPods("lost").stream()
                .anyMatch(pod -> !pod.getMetadata().getName().equals(lostPod)
                        && "1".equals(pod.getMetadata().getAnnotations().get(INDEX))));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(seen.get(lostPod).getStatus().getPhase())
                .isEqualTo("Failed"));
        assertThat(client.pods().withName(lostPod).get()).as("the pod garbage collector deleted it").isNull();
        assertThat(podsOfIndex("lost", "0")).as("index 0's pod runs on").singleElement()
                .satisfies(pod -> assertThat(pod.getMetadata().getName()).isEqualTo(index0));
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> Integer.valueOf(2).equals(jobs()
                .withName("lost").get().getStatus().getActive()));
        assertThat(jobs().withName("lost").get().getStatus().getFailed()).isEqualTo(1);

        Files.createFile(gate);

        Job done = awaitCondition("lost", "Complete");
        assertThat(done.getStatus().getCompletedIndexes()).isEqualTo("0,1");
        assertThat(done.getStatus().getFailed()).isEqualTo(1);
    }

    @Test
    void eachIndexAsksForItsOwnGpuAndTheOneThatDoesNotFitWaitsUnschedulable() throws IOException {
        runner.gpuCapacity(1);
        Path gate = workRoot.resolve("gate-gpus");
        Container main = shell("main", waitFor(gate));
        main.setResources(new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                .addToLimits("nvidia.com/gpu", new Quantity("1")).build());
        client.batch().v1().jobs().resource(indexed("gpus", 2, 0, "Never", List.of(), List.of(main))).create();

        await().atMost(Duration.ofSeconds(30)).until(() -> runningPods("gpus").size() == 1 && pods("gpus").stream()
                .anyMatch(pod -> GpuCapacityTests.condition(pod, "PodScheduled") != null
                        && "Unschedulable".equals(GpuCapacityTests.condition(pod, "PodScheduled").getReason())));
        Pod waiting = pods("gpus").stream().filter(pod -> pod.getSpec().getNodeName() == null).findFirst()
                .orElseThrow();
        assertThat(waiting.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(GpuCapacityTests.condition(waiting, "PodScheduled").getMessage())
                .isEqualTo("0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
        assertThat(jobs().withName("gpus").get().getStatus().getActive()).as("a pending pod is active").isEqualTo(2);

        Files.createFile(gate);

        Job done = awaitCondition("gpus", "Complete");
        assertThat(done.getStatus().getCompletedIndexes()).isEqualTo("0,1");
    }

    // Helpers

    private static Job indexed(String name, int completions, int backoffLimit, String restartPolicy,
            List<Container> init, List<Container> main) {
        Job job = job(name, backoffLimit, null, init, main);
        job.getSpec().setCompletionMode("Indexed");
        job.getSpec().setCompletions(completions);
        job.getSpec().setParallelism(completions);
        job.getSpec().getTemplate().getSpec().setRestartPolicy(restartPolicy);
        return job;
    }

    /** A shell container with the pod's data volume at {@code $DATA}. */
    private static Container shell(String name, String script) {
        return new ContainerBuilder().withName(name).withImage(HOST_IMAGE).withCommand("/bin/sh", "-c", script)
                .addNewEnv().withName("DATA").withValue("/data").endEnv()
                .addNewVolumeMount().withName("data").withMountPath("/data").endVolumeMount().build();
    }

    private static String waitFor(Path file) {
        return "while [ ! -e " + file + " ]; do sleep 0.05; done";
    }

    private List<Pod> pods(String job) {
        return client.pods().withLabel("job-name", job).list().getItems().stream()
                .sorted(Comparator.comparing(pod -> pod.getMetadata().getName())).toList();
    }

    private List<Pod> podsOfIndex(String job, String index) {
        return client.pods().withLabel("job-name", job).withLabel(INDEX, index).list().getItems();
    }

    /** The Job's pods that run now: phase Running, every container running, not being deleted. */
    private List<Pod> runningPods(String job) {
        return pods(job).stream().filter(pod -> pod.getMetadata().getDeletionTimestamp() == null
                && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase())
                && pod.getStatus().getContainerStatuses().stream().allMatch(s -> s.getState().getRunning() != null))
                .toList();
    }

    private Path dataVolume(String job, Pod pod) {
        return workRoot.resolve(job).resolve("pods").resolve(pod.getMetadata().getName()).resolve("volumes")
                .resolve("data");
    }
}
