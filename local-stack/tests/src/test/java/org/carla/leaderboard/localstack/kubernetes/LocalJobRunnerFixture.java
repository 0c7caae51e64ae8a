package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ScalableResource;

/** The API server, a runner and helpers to build Jobs of real programs: what the Job runner's tests share. */
abstract class LocalJobRunnerFixture {

    static final String PROGRAM_IMAGE = "registry.local/test-program:1";
    static final String HOST_IMAGE = "registry.local/host-tools:1";

    @TempDir
    Path workRoot;

    KubernetesApiServer api;
    KubernetesClient client;
    LocalJobRunner runner;

    @BeforeEach
    void start() {
        api = KubernetesApiServer.start(0);
        client = api.newClient();
        runner = LocalJobRunner.start(options());
    }

    @AfterEach
    void stop() {
        if (runner != null) {
            runner.close();
        }
        client.close();
        api.close();
    }

    LocalJobRunnerOptions options() {
        return LocalJobRunnerOptions.builder(client, workRoot)
                .backoff(Duration.ofMillis(20), Duration.ofMillis(200))
                .profile(ImageProfile.forImages("registry\\.local/test-program:.*")
                        .withCommand("/usr/local/bin/program", programArgv())
                        .withEnv(Map.of("FROM_PROFILE", "profile-value", "LOGS_DIR", "overridden-by-the-container")))
                .profile(ImageProfile.forImages("registry\\.local/agent-program:.*")
                        .withCommand("/usr/local/bin/program", programArgv())
                        .withUser(new ImageProfile.User(4242, 4343)))
                .profile(ImageProfile.forImages("registry\\.local/host-tools:.*"))
                .profile(ImageProfile.forImages("registry\\.local/missing/.*").withPullError("not found"))
                .profile(ImageProfile.forImages("participant/.*"))
                .build();
    }

    /** {@link ContainerProgram} in a JVM of its own: what the test images' {@code /usr/local/bin/program} is. */
    static List<String> programArgv() {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classes = Path.of(ContainerProgram.class.getProtectionDomain().getCodeSource().getLocation().getPath())
                .toString();
        return List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classes, ContainerProgram.class.getName());
    }

    /** A container of an image whose USER is 4242:4343. */
    static Container participant(String name, String... args) {
        Container container = program(name, args);
        container.setImage("registry.local/agent-program:1");
        return container;
    }

    static Container program(String name, String... args) {
        return new ContainerBuilder().withName(name).withImage(PROGRAM_IMAGE).withCommand("/usr/local/bin/program")
                .withArgs(args).addNewVolumeMount().withName("data").withMountPath("/data").endVolumeMount().build();
    }

    static Container host(String name, String... argv) {
        return new ContainerBuilder().withName(name).withImage(HOST_IMAGE).withCommand(argv).build();
    }

    static Job job(String name, int backoffLimit, Long deadline, List<Container> init, List<Container> main) {
        return new JobBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withBackoffLimit(backoffLimit).withActiveDeadlineSeconds(deadline)
                .withNewTemplate().withNewMetadata().addToLabels("app", "test").endMetadata()
                .withNewSpec().withRestartPolicy("OnFailure").withInitContainers(init).withContainers(main)
                .addNewVolume().withName("data").withNewEmptyDir().endEmptyDir().endVolume()
                .endSpec().endTemplate().endSpec().build();
    }

    /** A watch of every pod of the namespace that hands each pod it is told of to {@code seen}; the caller closes it. */
    io.fabric8.kubernetes.client.Watch watchPods(java.util.function.Consumer<Pod> seen) {
        return client.pods().watch(new io.fabric8.kubernetes.client.Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                seen.accept(pod);
            }

            @Override
            public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {
            }
        });
    }

    io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<Job, io.fabric8.kubernetes.api.model.batch.v1.JobList, ScalableResource<Job>> jobs() {
        return client.batch().v1().jobs().inNamespace(KubernetesApiServer.SUBMISSIONS_NAMESPACE);
    }

    Job awaitCondition(String name, String type) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            Job job = jobs().withName(name).get();
            return job != null && job.getStatus() != null && job.getStatus().getConditions() != null
                    && job.getStatus().getConditions().stream().anyMatch(c -> type.equals(c.getType()));
        });
        return jobs().withName(name).get();
    }

    static JobCondition condition(Job job, String type) {
        return job.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst().orElseThrow();
    }

    Pod onlyPod(Job job) {
        List<Pod> pods = client.pods().withLabel("controller-uid", job.getMetadata().getUid()).list().getItems();
        assertThat(pods).hasSize(1);
        return pods.get(0);
    }

    static ContainerStatus containerStatus(Pod pod, String name) {
        return pod.getStatus().getContainerStatuses().stream().filter(s -> name.equals(s.getName())).findFirst()
                .orElseThrow();
    }

    /** A volume of the Job's latest pod (each pod has volumes of its own). */
    Path volume(String job, String volume) {
        Path pods = workRoot.resolve(job).resolve("pods");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.isDirectory(pods) && podFolders(pods).findAny()
                .isPresent());
        return podFolders(pods).max(java.util.Comparator.comparing(LocalJobRunnerFixture::created)).orElseThrow()
                .resolve("volumes").resolve(volume);
    }

    /**
     * A volume of the Job's pod {@code pod}, once the runner has made its folder: a pod is in the API before the
     * runner starts it and makes its folder, so the latest folder may still be the pod it replaces.
     */
    Path volume(String job, String pod, String volume) {
        Path folder = workRoot.resolve(job).resolve("pods").resolve(pod);
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.isDirectory(folder));
        return folder.resolve("volumes").resolve(volume);
    }

    private static java.util.stream.Stream<Path> podFolders(Path pods) {
        try (var list = Files.list(pods)) {
            return list.toList().stream();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static java.nio.file.attribute.FileTime created(Path folder) {
        try {
            return Files.readAttributes(folder, java.nio.file.attribute.BasicFileAttributes.class).creationTime();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Sets the Job's {@code spec.suspend} with a patch, so it never conflicts with the runner's status writes. */
    void suspend(String job, boolean suspend) {
        jobs().withName(job).patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE), "{\"spec\":{\"suspend\":" + suspend + "}}");
    }

    static long[] stamps(Path file) throws IOException {
        return Arrays.stream(Files.readString(file).trim().split(" ")).mapToLong(Long::parseLong).toArray();
    }

    static List<Long> awaitPids(Path file) throws IOException {
        return awaitPids(file, true);
    }

    /** The two pids of the file's first line; with {@code bothAlive}, checked alive. */
    static List<Long> awaitPids(Path file, boolean bothAlive) throws IOException {
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(file) && Files.readString(file).endsWith("\n"));
        List<Long> pids = Arrays.stream(Files.readAllLines(file).get(0).trim().split(" ")).map(Long::parseLong).toList();
        assertThat(pids).hasSize(2);
        if (bothAlive) {
            assertThat(pids).allSatisfy(pid -> assertThat(alive(pid)).isTrue());
        }
        return pids;
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
