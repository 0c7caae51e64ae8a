package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyBuilder;
import io.fabric8.kubernetes.client.Watch;

/**
 * A pod lost with its node, evicted for node pressure or interrupted with its spot instance is marked as a cluster
 * marks it ({@code DisruptionTarget}), failed, and replaced by the Job controller with a pod of fresh volumes, counted
 * against backoffLimit unless a pod failure policy Ignores it; restartPolicy Never fails the pod instead of restarting
 * its container; an image that cannot be pulled leaves its container waiting, the pod Pending.
 */
class PodDisruptionTests extends LocalJobRunnerFixture {

    /** Every pod of the namespace by name, as last seen (deleted ones included, with their final state). */
    private final Map<String, Pod> seen = new ConcurrentHashMap<>();
    /** Every waiting reason a container was seen in, as "container: reason". */
    private final Set<String> waits = ConcurrentHashMap.newKeySet();
    private Watch watch;

    @BeforeEach
    void watchEveryPod() {
        watch = watchPods(pod -> {
            seen.put(pod.getMetadata().getName(), pod);
            if (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null) {
                pod.getStatus().getContainerStatuses().stream().filter(c -> c.getState().getWaiting() != null)
                        .forEach(c -> waits.add(c.getName() + ": " + c.getState().getWaiting().getReason()));
            }
        });
    }

    @AfterEach
    void stopWatching() throws Exception {
        watch.close();
    }

    @Test
    void aPodLostWithItsNodeIsFailedDeletedAndReplacedByOneWithFreshVolumes() throws Exception {
        client.batch().v1().jobs().resource(job("lost", 3, null, List.of(),
                List.of(program("spawner", "spawn", "/data/pids")))).create();
        Path firstPids = volume("lost", "data").resolve("pids");
        List<Long> first = awaitPids(firstPids);
        String firstPod = onlyPod(jobs().withName("lost").get()).getMetadata().getName();

        assertThat(runner.loseNode("lost")).isTrue();

        assertThat(first).allSatisfy(pid -> assertThat(alive(pid)).as("pid %d", pid).isFalse());
        String secondPod = await().atMost(Duration.ofSeconds(30)).until(() -> podOf("lost")
                .filter(pod -> !pod.equals(firstPod)), Optional::isPresent).orElseThrow();
        Pod lost = seen.get(firstPod);
        assertThat(disruptionTarget(lost).getReason()).isEqualTo("DeletionByPodGC");
        assertThat(disruptionTarget(lost).getMessage()).isEqualTo("PodGC: node no longer exists");
        assertThat(lost.getStatus().getPhase()).isEqualTo("Failed");
        assertThat(client.pods().withName(firstPod).get()).as("the pod garbage collector deleted it").isNull();
        Path secondPids = volume("lost", secondPod, "data").resolve("pids");
        assertThat(secondPids).isNotEqualTo(firstPids);
        List<Long> second = awaitPids(secondPids);
        assertThat(Files.readAllLines(secondPids)).as("a fresh emptyDir: the first pod's file is not there").hasSize(1);
        assertThat(second).doesNotContainAnyElementsOf(first);
        Job job = jobs().withName("lost").get();
        assertThat(job.getStatus().getFailed()).isEqualTo(1);
        assertThat(job.getStatus().getActive()).isEqualTo(1);
        assertThat(job.getStatus().getConditions()).isNullOrEmpty();
    }

    /**
     * A node gone takes every process of its pod at once: no container outlives another long enough to see it end and
     * act (in a submission's pod: the evaluator recording CARLA's end as a crash, logcopy uploading it). Each of two
     * containers watches the other's process and leaves a file when it ends.
     */
    @Test
    void aLostNodeTakesEveryContainerAtOnceSoNoneSeesAnotherEnd() throws Exception {
        client.batch().v1().jobs().resource(job("watchers", 3, null, List.of(),
                List.of(watcher("left", "right"), watcher("right", "left")))).create();
        Path data = volume("watchers", "data");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(data.resolve("left-watches"))
                && Files.exists(data.resolve("right-watches")));

        assertThat(runner.loseNode("watchers")).isTrue();

        try (var files = Files.list(data)) {
            assertThat(files.map(file -> file.getFileName().toString()))
                    .as("files of a container that saw the other end").noneMatch(name -> name.endsWith("-ended"));
        }
    }

    /** Writes its pid, waits for the other's, then watches it and writes {@code <other>-ended} once it is gone. */
    private static io.fabric8.kubernetes.api.model.Container watcher(String name, String other) {
        String script = "echo $$$$ > $DATA/" + name + "; while [ ! -s $DATA/" + other + " ]; do sleep 0.05; done; "
                + "p=`cat $DATA/" + other + "`; touch $DATA/" + name + "-watches; "
                + "while [ -e /proc/$p ] && [ \"`cut -d' ' -f3 /proc/$p/stat 2>/dev/null`\" != Z ]; do :; done; "
                + "touch $DATA/" + other + "-ended; sleep 1000";
        return new ContainerBuilder().withName(name).withImage(HOST_IMAGE).withCommand("/bin/sh", "-c", script)
                .addNewEnv().withName("DATA").withValue("/data").endEnv()
                .addNewVolumeMount().withName("data").withMountPath("/data").endVolumeMount().build();
    }

    @Test
    void anEvictedPodStaysFailedAndEvictedAndIsReplaced() throws Exception {
        // sleep dies of the first signal it gets: a SIGTERM before the SIGKILL would show as its exit code 143.
        var sleeper = new ContainerBuilder().withName("sleeper").withImage(HOST_IMAGE)
                .withCommand("sleep", "1000").build();
        client.batch().v1().jobs().resource(job("evicted", 3, null, List.of(),
                List.of(program("spawner", "spawn", "/data/pids"), sleeper))).create();
        List<Long> first = awaitPids(volume("evicted", "data").resolve("pids"));
        String firstPod = onlyPod(jobs().withName("evicted").get()).getMetadata().getName();
        await().atMost(Duration.ofSeconds(30)).until(() -> containerStatus(client.pods().withName(firstPod).get(),
                "sleeper").getState().getRunning() != null);

        assertThat(runner.evict("evicted", "memory")).isTrue();

        assertThat(first).allSatisfy(pid -> assertThat(alive(pid)).isFalse());
        await().atMost(Duration.ofSeconds(30)).until(() -> client.pods().withLabel("job-name", "evicted").list()
                .getItems().size() == 2);
        Pod evicted = client.pods().withName(firstPod).get();
        assertThat(evicted.getStatus().getPhase()).isEqualTo("Failed");
        assertThat(evicted.getStatus().getReason()).isEqualTo("Evicted");
        assertThat(evicted.getStatus().getMessage()).isEqualTo("The node was low on resource: memory.");
        assertThat(disruptionTarget(evicted).getReason()).isEqualTo("TerminationByKubelet");
        // A hard eviction has no grace: SIGKILL alone, as containerd's StopContainer with a timeout of 0 sends.
        assertThat(containerStatus(evicted, "spawner").getState().getTerminated().getExitCode()).isEqualTo(137);
        assertThat(containerStatus(evicted, "sleeper").getState().getTerminated().getExitCode()).isEqualTo(137);
        await().atMost(Duration.ofSeconds(30)).until(() -> Integer.valueOf(1).equals(jobs().withName("evicted").get()
                .getStatus().getFailed()));
    }

    @Test
    void anInterruptedPodGetsSigtermThenItsGraceThenSigkillAndIsReplaced() throws Exception {
        var stubborn = new ContainerBuilder().withName("stubborn").withImage(HOST_IMAGE)
                .withCommand("/bin/sh", "-c", "trap '' TERM; echo $$$$ > $PID_FILE; while true; do sleep 1; done")
                .addNewEnv().withName("PID_FILE").withValue("/data/pid").endEnv()
                .addNewVolumeMount().withName("data").withMountPath("/data").endVolumeMount().build();
        Job spot = job("spot", 3, null, List.of(), List.of(stubborn));
        // The replacement ignores SIGTERM too: stopped at the test's end after this grace, not the default 30 s.
        spot.getSpec().getTemplate().getSpec().setTerminationGracePeriodSeconds(2L);
        client.batch().v1().jobs().resource(spot).create();
        Path pidFile = volume("spot", "data").resolve("pid");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        long pid = Long.parseLong(readString(pidFile).trim());
        String firstPod = onlyPod(jobs().withName("spot").get()).getMetadata().getName();

        Instant interrupted = Instant.now();
        assertThat(runner.interrupt("spot", Duration.ofSeconds(2))).isTrue();

        assertThat(alive(pid)).isFalse();
        assertThat(Duration.between(interrupted, Instant.now())).as("SIGTERM ignored: SIGKILL after the grace")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        Pod terminated = client.pods().withName(firstPod).get();
        assertThat(terminated.getStatus().getPhase()).isEqualTo("Failed");
        assertThat(terminated.getStatus().getReason()).isEqualTo("Terminated");
        assertThat(disruptionTarget(terminated).getMessage())
                .isEqualTo("Pod was terminated in response to imminent node shutdown.");
        await().atMost(Duration.ofSeconds(30)).until(() -> client.pods().withLabel("job-name", "spot").list().getItems()
                .stream().anyMatch(pod -> !pod.getMetadata().getName().equals(firstPod) && pod.getStatus() != null
                        && "Running".equals(pod.getStatus().getPhase())));
    }

    @Test
    void aDisruptionThePodFailurePolicyIgnoresIsNotCountedAndOneItCountsFailsTheJob() throws Exception {
        Job ignoring = neverRestarting("ignoring", 0);
        ignoring.getSpec().setPodFailurePolicy(new PodFailurePolicyBuilder().addNewRule().withAction("Ignore")
                .addNewOnPodCondition().withType("DisruptionTarget").withStatus("True").endOnPodCondition().endRule()
                .build());
        client.batch().v1().jobs().resource(ignoring).create();
        client.batch().v1().jobs().resource(neverRestarting("counting", 0)).create();
        awaitPids(volume("ignoring", "data").resolve("pids"));
        awaitPids(volume("counting", "data").resolve("pids"));
        String firstPod = onlyPod(jobs().withName("ignoring").get()).getMetadata().getName();

        assertThat(runner.loseNode("ignoring")).isTrue();
        assertThat(runner.loseNode("counting")).isTrue();

        Job failed = awaitCondition("counting", "Failed");
        assertThat(condition(failed, "Failed").getReason()).isEqualTo("BackoffLimitExceeded");
        await().atMost(Duration.ofSeconds(30)).until(() -> podOf("ignoring").filter(pod -> !pod.equals(firstPod))
                .isPresent());
        Job ignored = jobs().withName("ignoring").get();
        assertThat(ignored.getStatus().getFailed()).as("Ignored: not counted against backoffLimit 0").isNull();
        assertThat(ignored.getStatus().getConditions()).isNullOrEmpty();
    }

    @Test
    void underRestartPolicyNeverAFailedContainerFailsItsPodWhichIsReplacedOrFailsTheJobByItsPolicy() throws Exception {
        Job retried = job("retried", 1, null, List.of(), List.of(program("main", "fail", "/data/runs", "3")));
        retried.getSpec().getTemplate().getSpec().setRestartPolicy("Never");
        Job failJob = job("fail-job", 6, null, List.of(), List.of(program("main", "fail", "/data/runs", "42")));
        failJob.getSpec().getTemplate().getSpec().setRestartPolicy("Never");
        failJob.getSpec().setPodFailurePolicy(new PodFailurePolicyBuilder().addNewRule().withAction("FailJob")
                .withNewOnExitCodes().withOperator("In").withValues(42).endOnExitCodes().endRule().build());
        client.batch().v1().jobs().resource(retried).create();
        client.batch().v1().jobs().resource(failJob).create();

        Job backedOff = awaitCondition("retried", "Failed");
        assertThat(condition(backedOff, "Failed").getReason()).isEqualTo("BackoffLimitExceeded");
        assertThat(backedOff.getStatus().getFailed()).as("backoffLimit 1: two failed pods").isEqualTo(2);
        assertThat(client.pods().withLabel("job-name", "retried").list().getItems()).hasSize(2)
                .allSatisfy(pod -> {
                    assertThat(pod.getStatus().getPhase()).isEqualTo("Failed");
                    assertThat(containerStatus(pod, "main").getRestartCount()).isZero();
                });
        Job failedByPolicy = awaitCondition("fail-job", "Failed");
        assertThat(condition(failedByPolicy, "Failed").getReason()).isEqualTo("PodFailurePolicy");
        assertThat(condition(failedByPolicy, "Failed").getMessage()).matches("Container main for pod submissions/"
                + "fail-job-[a-z0-9]{5} failed with exit code 42 matching FailJob rule at index 0");
    }

    @Test
    void aContainerWhoseImageCannotBePulledWaitsInImagePullBackOffWhileTheOthersRunAndThePodStaysPending() throws Exception {
        var missing = new ContainerBuilder().withName("agent-1").withImage("registry.local/missing/agent:v1")
                .withCommand("/bin/true").build();
        client.batch().v1().jobs().resource(job("unpullable", 2, null, List.of(),
                List.of(missing, host("simulator-1", "sleep", "300")))).create();

        await().atMost(Duration.ofSeconds(30)).until(() -> podOf("unpullable").map(seen::get)
                .filter(pod -> pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null
                        && pod.getStatus().getContainerStatuses().stream().anyMatch(c -> c.getName().equals("simulator-1")
                                && c.getState().getRunning() != null)).isPresent());
        await().atMost(Duration.ofSeconds(30)).until(() -> waits.containsAll(Set.of("agent-1: ErrImagePull",
                "agent-1: ImagePullBackOff")));
        Pod pod = client.pods().withLabel("job-name", "unpullable").list().getItems().get(0);
        assertThat(pod.getStatus().getPhase()).as("a container never started: Pending").isEqualTo("Pending");
        assertThat(containerStatus(pod, "agent-1").getRestartCount()).isZero();
        assertThat(containerStatus(pod, "agent-1").getState().getWaiting().getMessage())
                .isIn("Back-off pulling image \"registry.local/missing/agent:v1\"", "failed to pull and unpack image"
                        + " \"registry.local/missing/agent:v1\": failed to resolve reference"
                        + " \"registry.local/missing/agent:v1\": not found");
        assertThat(jobs().withName("unpullable").get().getStatus().getConditions()).isNullOrEmpty();
    }

    private Job neverRestarting(String name, int backoffLimit) {
        Job job = job(name, backoffLimit, null, List.of(), List.of(program("spawner", "spawn", "/data/pids")));
        job.getSpec().getTemplate().getSpec().setRestartPolicy("Never");
        return job;
    }

    /** The name of the Job's pod on the API now, if it has one that is not being deleted. */
    private Optional<String> podOf(String job) {
        return client.pods().withLabel("job-name", job).list().getItems().stream()
                .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
                .filter(pod -> !"Failed".equals(pod.getStatus() == null ? null : pod.getStatus().getPhase()))
                .map(pod -> pod.getMetadata().getName()).findFirst();
    }

    private static PodCondition disruptionTarget(Pod pod) {
        return pod.getStatus().getConditions().stream().filter(c -> c.getType().equals("DisruptionTarget"))
                .filter(c -> c.getStatus().equals("True")).findFirst().orElseThrow();
    }

    private static String readString(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
