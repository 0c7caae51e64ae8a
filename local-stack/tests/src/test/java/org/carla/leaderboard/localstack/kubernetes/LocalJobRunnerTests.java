package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;

class LocalJobRunnerTests extends LocalJobRunnerFixture {

    @Test
    void runsInitContainersOneAfterAnotherThenCompletes() throws IOException {
        Job job = job("init-order", 2, null,
                List.of(program("first", "stamp", "/data/first", "400"), program("second", "stamp", "/data/second", "400")),
                List.of(program("main", "stamp", "/data/main", "100"), host("true", "/bin/true")));
        client.batch().v1().jobs().resource(job).create();

        Job done = awaitCondition("init-order", "Complete");

        assertThat(done.getStatus().getSucceeded()).isEqualTo(1);
        assertThat(done.getStatus().getActive()).isNull();
        assertThat(done.getStatus().getStartTime()).isNotNull();
        assertThat(done.getStatus().getCompletionTime()).isNotNull();
        JobCondition complete = condition(done, "Complete");
        assertThat(complete.getStatus()).isEqualTo("True");
        assertThat(complete.getLastTransitionTime()).isNotNull();
        long[] first = stamps(volume("init-order", "data").resolve("first"));
        long[] second = stamps(volume("init-order", "data").resolve("second"));
        long[] main = stamps(volume("init-order", "data").resolve("main"));
        assertThat(second[0]).isGreaterThanOrEqualTo(first[1]);
        assertThat(main[0]).isGreaterThanOrEqualTo(second[1]);

        Pod pod = onlyPod(done);
        assertThat(pod.getMetadata().getLabels()).containsEntry("job-name", "init-order")
                .containsEntry("controller-uid", done.getMetadata().getUid());
        assertThat(pod.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(done.getMetadata().getUid()));
        assertThat(pod.getStatus().getPhase()).isEqualTo("Succeeded");
        assertThat(pod.getStatus().getContainerStatuses()).extracting(s -> s.getState().getTerminated().getExitCode())
                .containsOnly(0);

        // The launcher deletes a finished Job; its pod goes with it, as the garbage collector would remove it.
        jobs().withName("init-order").withPropagationPolicy(io.fabric8.kubernetes.api.model.DeletionPropagation.BACKGROUND)
                .delete();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.pods().withLabel("job-name", "init-order").list().getItems().isEmpty());
    }

    @Test
    void runsWhatAnInitContainerInstalledIntoASharedVolume() {
        var install = new ContainerBuilder().withName("install-pod-runtime").withImage(PROGRAM_IMAGE)
                .withCommand("/usr/local/bin/program", "install", "/opt/pod-runtime")
                .addNewVolumeMount().withName("pod-runtime").withMountPath("/opt/pod-runtime").endVolumeMount().build();
        var agent = new ContainerBuilder().withName("agent-1").withImage("participant/agent:happy")
                .withCommand("/opt/pod-runtime/pod-runtime", "agent")
                .addNewVolumeMount().withName("pod-runtime").withMountPath("/opt/pod-runtime").endVolumeMount().build();
        Job job = job("installed", 0, null, List.of(install), List.of(agent));
        job.getSpec().getTemplate().getSpec().getVolumes().add(new io.fabric8.kubernetes.api.model.VolumeBuilder()
                .withName("pod-runtime").withNewEmptyDir().endEmptyDir().build());
        client.batch().v1().jobs().resource(job).create();

        Job done = awaitCondition("installed", "Complete");

        assertThat(done.getStatus().getSucceeded()).isEqualTo(1);
        assertThat(volume("installed", "pod-runtime").resolve("pod-runtime")).isExecutable();
    }

    @Test
    void keepsAContainerThatEscapesItsVolumeFromRunningUntilTheDeadline() {
        Container escaping = program("escape", "stamp", "/data/x", "1");
        escaping.getVolumeMounts().get(0).setSubPath("../../outside");
        client.batch().v1().jobs().resource(job("escaping", 6, 2L, List.of(), List.of(escaping))).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> waitingReason("escaping", "escape")
                .equals("CreateContainerConfigError"));

        Job failed = awaitCondition("escaping", "Failed");

        assertThat(condition(failed, "Failed").getReason()).isEqualTo("DeadlineExceeded");
        assertThat(workRoot.resolve("outside")).doesNotExist();
        assertThat(volume("escaping", "data").resolve("x")).doesNotExist();
    }

    @Test
    void leavesAContainerWhoseImageHasNoProfileWaitingUntilTheDeadline() {
        Job job = job("unknown-image", 6, 2L, List.of(), List.of(new ContainerBuilder().withName("c")
                .withImage("docker.io/library/unknown:1").withCommand("/bin/true").build()));
        client.batch().v1().jobs().resource(job).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> List.of("ErrImagePull", "ImagePullBackOff")
                .contains(waitingReason("unknown-image", "c")));
        assertThat(onlyPod(jobs().withName("unknown-image").get()).getStatus().getPhase()).isEqualTo("Pending");

        Job failed = awaitCondition("unknown-image", "Failed");

        assertThat(condition(failed, "Failed").getReason()).isEqualTo("DeadlineExceeded");
    }

    /** The waiting reason of a container of the Job's pod now; "" when there is none. */
    private String waitingReason(String job, String container) {
        var pods = client.pods().withLabel("job-name", job).list().getItems();
        return pods.stream().flatMap(pod -> containerStatuses(pod).stream()).filter(s -> s.getName().equals(container))
                .map(s -> s.getState().getWaiting() == null ? "" : s.getState().getWaiting().getReason())
                .findFirst().orElse("");
    }

    @Test
    void deletesAFinishedJobOnceItsTtlHasPassed() {
        Job job = job("short-lived", 0, null, List.of(), List.of(host("true", "/bin/true")));
        job.getSpec().setTtlSecondsAfterFinished(1);
        client.batch().v1().jobs().resource(job).create();

        awaitCondition("short-lived", "Complete");

        await().atMost(Duration.ofSeconds(20)).until(() -> jobs().withName("short-lived").get() == null
                && client.pods().withLabel("job-name", "short-lived").list().getItems().isEmpty());
    }

    @Test
    void failsWithBackoffLimitExceededWhenTheRestartsReachTheLimitAndOnlyOnceItsPodIsGone() throws IOException {
        List<Pod> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (var watch = client.pods().withLabel("job-name", "crashing").watch(new io.fabric8.kubernetes.client.Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                seen.add(pod);
            }

            @Override
            public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {
            }
        })) {
            Job job = job("crashing", 2, null, List.of(),
                    List.of(program("crash", "fail", "/data/runs", "3"), host("sleeper", "sleep", "300")));
            job.getSpec().getTemplate().getSpec().setTerminationGracePeriodSeconds(2L);
            client.batch().v1().jobs().resource(job).create();

            Job failed = awaitCondition("crashing", "Failed");

            assertThat(condition(failed, "Failed").getReason()).isEqualTo("BackoffLimitExceeded");
            assertThat(condition(failed, "FailureTarget").getReason()).isEqualTo("BackoffLimitExceeded");
            assertThat(failed.getStatus().getConditions()).extracting(JobCondition::getType)
                    .containsSubsequence("FailureTarget", "Failed");
            assertThat(failed.getStatus().getFailed()).isEqualTo(1);
            assertThat(failed.getStatus().getActive()).isNull();
            assertThat(failed.getStatus().getTerminating()).isZero();
            assertThat(failed.getStatus().getCompletionTime()).isNull();
            assertThat(client.pods().withLabel("job-name", "crashing").list().getItems())
                    .as("Failed is set once the Job's pods are gone (the controller deleted the active one)").isEmpty();
            // The controller fails the Job as soon as the restart counts reach backoffLimit: at the second restart,
            // which the kubelet had already started; the container ran twice, or three times when that restart got
            // as far as writing its line before it was stopped.
            assertThat(Files.readAllLines(volume("crashing", "data").resolve("runs"))).hasSizeBetween(2, 3);
            assertThat(seen).extracting(pod -> containerStatuses(pod).stream().filter(s -> s.getName().equals("crash"))
                    .mapToInt(ContainerStatus::getRestartCount).max().orElse(0)).contains(2).doesNotContain(3);
            Pod last = seen.get(seen.size() - 1);
            assertThat(last.getMetadata().getDeletionTimestamp()).isNotNull();
            assertThat(last.getStatus().getPhase()).isEqualTo("Failed");
            // The Job failing stopped the container that was still running.
            assertThat(containerStatus(last, "sleeper").getState().getTerminated()).isNotNull();
        }
    }

    private static List<ContainerStatus> containerStatuses(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null ? List.of()
                : pod.getStatus().getContainerStatuses();
    }

    @Test
    void enforcesTheActiveDeadlineAndStopsTheProcesses() throws IOException {
        // Long enough for a JVM to start on a loaded machine and report its pids before the deadline (10 s was not,
        // with the suite's other modules beside it at a load of about 30).
        Job job = job("too-slow", 6, 20L, List.of(), List.of(program("spawner", "spawn", "/data/pids")));
        client.batch().v1().jobs().resource(job).create();
        List<Long> pids = awaitPids(volume("too-slow", "data").resolve("pids"));

        Job failed = awaitCondition("too-slow", "Failed");

        assertThat(condition(failed, "Failed").getReason()).isEqualTo("DeadlineExceeded");
        assertThat(condition(failed, "Failed").getMessage()).isEqualTo("Job was active longer than specified deadline");
        assertThat(pids).allSatisfy(pid -> assertThat(alive(pid)).as("pid %d", pid).isFalse());
    }

    @Test
    void deletingARunningJobLeavesNoProcessBehind() throws IOException {
        Job job = job("deleted", 6, null, List.of(),
                List.of(program("spawner", "spawn", "/data/pids"), host("sleeper", "sleep", "300")));
        job.getSpec().getTemplate().getSpec().setTerminationGracePeriodSeconds(2L);
        client.batch().v1().jobs().resource(job).create();
        List<Long> pids = new ArrayList<>(awaitPids(volume("deleted", "data").resolve("pids")));
        await().atMost(Duration.ofSeconds(20)).until(() -> onlyPod(jobs().withName("deleted").get()).getStatus()
                .getContainerStatuses().stream().allMatch(s -> s.getState().getRunning() != null));
        pids.add(Long.parseLong(containerStatus(onlyPod(jobs().withName("deleted").get()), "sleeper").getContainerID()
                .substring("local://".length())));

        assertThat(runner.processes()).extracting(ProcessHandle::pid).containsAll(pids);

        jobs().withName("deleted").withPropagationPolicy(io.fabric8.kubernetes.api.model.DeletionPropagation.BACKGROUND)
                .delete();

        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(pids).allSatisfy(pid -> assertThat(alive(pid)).isFalse()));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.pods().withLabel("job-name", "deleted").list().getItems().isEmpty());
        assertThat(runner.processes()).isEmpty();
    }

    @Test
    void aContainerWhoseMainProcessEndsTakesEveryProcessOfItAlong() throws IOException {
        Job job = job("orphans", 0, null, List.of(),
                List.of(program("leaver", "orphan", "/data/pids"), host("sleeper", "sleep", "300")));
        job.getSpec().getTemplate().getSpec().setTerminationGracePeriodSeconds(1L);
        client.batch().v1().jobs().resource(job).create();
        List<Long> pids = awaitPids(volume("orphans", "data").resolve("pids"), false);

        // The leaver exited 0 leaving its child (re-parented, a session of its own): the runner kills the child.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(alive(pids.get(1))).isFalse());
        await().atMost(Duration.ofSeconds(10)).until(() -> containerStatus(onlyPod(jobs().withName("orphans").get()),
                "leaver").getState().getTerminated() != null);
        assertThat(containerStatus(onlyPod(jobs().withName("orphans").get()), "leaver").getState().getTerminated()
                .getExitCode()).isZero();
        assertThat(containerStatus(onlyPod(jobs().withName("orphans").get()), "sleeper").getState().getRunning())
                .isNotNull();
    }

    @Test
    void killsAContainerAtOnceAsTheOomKillerDoesAndRestartsIt() throws IOException {
        Job job = job("oom", 2, null, List.of(), List.of(program("spawner", "spawn", "/data/pids")));
        client.batch().v1().jobs().resource(job).create();
        Path pidsFile = volume("oom", "data").resolve("pids");
        List<Long> first = awaitPids(pidsFile);

        assertThat(runner.killContainer("oom", "spawner", true)).isTrue();

        assertThat(first).allSatisfy(pid -> assertThat(alive(pid)).as("pid %d", pid).isFalse());
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.readAllLines(pidsFile).size() == 2);
        ContainerStatus status = containerStatus(onlyPod(jobs().withName("oom").get()), "spawner");
        assertThat(status.getRestartCount()).isEqualTo(1);
        assertThat(status.getLastState().getTerminated().getExitCode()).isEqualTo(137);
        assertThat(status.getLastState().getTerminated().getReason()).isEqualTo("OOMKilled");
        assertThat(status.getLastState().getTerminated().getFinishedAt()).isNotNull();
        assertThat(runner.killContainer("oom", "no-such-container", false)).isFalse();
        assertThat(runner.killContainer("no-such-job", "spawner", false)).isFalse();
    }

    @Test
    void mapsMountPathsInEnvAndArgumentsAndLogsEachContainerToItsOwnFile() throws IOException {
        Container env = program("env", "env", "$(LOGS_DIR)/env.txt", "LOGS_DIR", "STATUS_DIR", "NEAR_MISS", "SUBDIR",
                "FROM_PROFILE", "JOB_LABEL", "SECRET");
        env.setEnv(List.of(new EnvVar("LOGS_DIR", "/tmp/logs", null),
                new EnvVar("STATUS_DIR", "/tmp/logs/containers-status", null),
                new EnvVar("NEAR_MISS", "/tmp/logsbook", null),
                new EnvVar("SUBDIR", "/work/shared/x", null),
                new EnvVarBuilder().withName("JOB_LABEL").withNewValueFrom().withNewFieldRef()
                        .withFieldPath("metadata.labels['job-name']").endFieldRef().endValueFrom().build(),
                new EnvVarBuilder().withName("SECRET").withNewValueFrom().withNewSecretKeyRef("token", "evalai", false)
                        .endValueFrom().build()));
        env.setVolumeMounts(List.of(
                new VolumeMountBuilder().withName("logs").withMountPath("/tmp/logs").build(),
                new VolumeMountBuilder().withName("data").withMountPath("/work/shared").withSubPath("agent1").build()));
        Container talker = program("talker", "say", "hello", "1");
        Job job = job("mapping", 2, null, List.of(), List.of(env, talker));
        job.getSpec().getTemplate().getSpec().getVolumes()
                .add(new io.fabric8.kubernetes.api.model.VolumeBuilder().withName("logs").withNewEmptyDir().endEmptyDir()
                        .build());
        client.batch().v1().jobs().resource(job).create();

        awaitCondition("mapping", "Failed");

        Path logs = volume("mapping", "logs");
        Path data = volume("mapping", "data");
        assertThat(Files.readAllLines(logs.resolve("env.txt"))).containsExactly(
                "LOGS_DIR=" + logs,
                "STATUS_DIR=" + logs.resolve("containers-status"),
                "NEAR_MISS=/tmp/logsbook",
                "SUBDIR=" + data.resolve("agent1").resolve("x"),
                "FROM_PROFILE=profile-value",
                "JOB_LABEL=mapping",
                "SECRET=null",
                "cwd=" + logs.getParent().getParent().resolve("containers").resolve("env"));
        Path jobLogs = workRoot.resolve("mapping").resolve("logs");
        // backoffLimit 2: the talker ran at least twice, its log file kept every run; the other container has a file
        // of its own.
        assertThat(Files.readAllLines(jobLogs.resolve("talker.log"))).hasSizeGreaterThanOrEqualTo(4)
                .containsOnly("out: hello", "err: hello");
        assertThat(jobLogs.resolve("env.log")).exists();
        assertThat(Files.readString(jobLogs.resolve("env.log"))).doesNotContain("hello");
    }

    @Test
    void waitsForASuspendedJobAndLeavesAFinishedJobAloneAfterARestart() throws IOException {
        Job job = job("suspended", 1, null, List.of(), List.of(program("main", "fail", "/data/runs", "0")));
        job.getSpec().setSuspend(true);
        client.batch().v1().jobs().resource(job).create();
        // The informer has delivered the Job once the runner has seen a later one run to its end.
        client.batch().v1().jobs().resource(job("marker", 1, null, List.of(), List.of(host("true", "/bin/true"))))
                .create();
        awaitCondition("marker", "Complete");
        assertThat(client.pods().withLabel("job-name", "suspended").list().getItems()).isEmpty();

        suspend("suspended", false);
        awaitCondition("suspended", "Complete");
        runner.close();
        runner = LocalJobRunner.start(options());
        client.batch().v1().jobs().resource(job("after-restart", 1, null, List.of(), List.of(host("true", "/bin/true"))))
                .create();
        awaitCondition("after-restart", "Complete");

        assertThat(Files.readAllLines(volume("suspended", "data").resolve("runs"))).hasSize(1);
        assertThat(client.pods().withLabel("job-name", "suspended").list().getItems()).hasSize(1);
    }

    @Test
    void aRestartedRunnerGivesAnUnfinishedJobAFreshPod() {
        Job job = job("survivor", 6, null, List.of(), List.of(host("sleeper", "sleep", "300")));
        job.getSpec().getTemplate().getSpec().setTerminationGracePeriodSeconds(1L);
        client.batch().v1().jobs().resource(job).create();
        await().atMost(Duration.ofSeconds(20)).until(() -> runner.processes().size() == 1);
        long firstPid = runner.processes().get(0).pid();
        String firstPod = onlyPod(jobs().withName("survivor").get()).getMetadata().getName();
        String startTime = jobs().withName("survivor").get().getStatus().getStartTime();

        runner.close();
        assertThat(alive(firstPid)).isFalse();
        runner = LocalJobRunner.start(options());

        await().atMost(Duration.ofSeconds(20)).until(() -> runner.processes().size() == 1);
        Pod second = onlyPod(jobs().withName("survivor").get());
        assertThat(second.getMetadata().getName()).isNotEqualTo(firstPod);
        assertThat(runner.processes().get(0).pid()).isNotEqualTo(firstPid);
        assertThat(jobs().withName("survivor").get().getStatus().getStartTime()).isEqualTo(startTime);
    }
}
