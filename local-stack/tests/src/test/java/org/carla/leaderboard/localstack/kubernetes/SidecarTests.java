package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Watch;

/**
 * Sidecars (init containers with {@code restartPolicy: Always}) as the kubelet runs them: each started before the
 * next init container, restarted after any exit even under a pod's {@code restartPolicy: Never} (whose restarts the
 * Job controller does not count), and stopped last first once the regular containers are done, their exit codes
 * leaving the pod's phase alone.
 */
class SidecarTests extends LocalJobRunnerFixture {

    /** Every status of every pod, in the order the watch saw them. */
    private final List<Pod> seen = new CopyOnWriteArrayList<>();
    private Watch watch;

    @BeforeEach
    void watchEveryPod() {
        watch = watchPods(seen::add);
    }

    @AfterEach
    void stopWatching() {
        watch.close();
    }

    @Test
    void sidecarsStartBeforeTheNextContainerAndStopLastFirstOnceTheRegularContainersAreDone() throws IOException {
        // setup and main each wait for the sidecar before them to serve: each was stopped while serving.
        Job job = job("sidecars", 0, null,
                List.of(sidecar(program("first", "serve", "/data/first")), program("setup", "await", "/data/first"),
                        sidecar(program("second", "serve", "/data/second"))),
                List.of(program("main", "await", "/data/second", "/data/main-end")));
        job.getSpec().getTemplate().getSpec().setRestartPolicy("Never");
        job.getSpec().getTemplate().getSpec().setTerminationGracePeriodSeconds(20L);
        client.batch().v1().jobs().resource(job).create();

        Job done = awaitCondition("sidecars", "Complete");

        assertThat(done.getStatus().getSucceeded()).isEqualTo(1);
        assertThat(firstRunning()).containsExactly("first", "setup", "second", "main");
        Pod pod = onlyPod(done);
        assertThat(pod.getStatus().getPhase()).as("the sidecars' exit codes do not count").isEqualTo("Succeeded");
        for (String name : List.of("first", "second")) {
            ContainerStatus status = initStatus(pod, name);
            assertThat(status.getRestartCount()).isZero();
            assertThat(status.getState().getTerminated().getExitCode()).as("%s ended on SIGTERM", name).isEqualTo(143);
        }
        Path data = volume("sidecars", "data");
        long mainEnd = Long.parseLong(Files.readString(data.resolve("main-end")).trim());
        long firstStop = stop(data.resolve("first"));
        long secondStop = stop(data.resolve("second"));
        assertThat(secondStop).as("the last sidecar stops first, once main has ended").isGreaterThanOrEqualTo(mainEnd)
                .isLessThan(firstStop);
    }

    @Test
    void aSidecarIsRestartedAfterAnyExitUnderRestartPolicyNeverAndTheJobDoesNotCountIt() throws IOException {
        Job job = job("restarted", 0, null,
                List.of(sidecar(program("crashing", "fail", "/data/crashing", "3")),
                        sidecar(program("quitting", "fail", "/data/quitting", "0"))),
                List.of(program("main", "await", "/data/go")));
        job.getSpec().getTemplate().getSpec().setRestartPolicy("Never");
        client.batch().v1().jobs().resource(job).create();
        Path data = volume("restarted", "data");
        // Each run is a JVM's start: twice each is a restart each, bounded for a loaded machine.
        await().atMost(Duration.ofSeconds(120)).until(() -> runs(data.resolve("crashing")) >= 2
                && runs(data.resolve("quitting")) >= 2);
        // The watch tells of each restart a moment after the restarted container may have written its line.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(seenInit("crashing")).anySatisfy(status -> {
                assertThat(status.getRestartCount()).isPositive();
                assertThat(status.getLastState().getTerminated().getExitCode()).isEqualTo(3);
            });
            assertThat(seenInit("quitting")).anySatisfy(status -> {
                assertThat(status.getRestartCount()).isPositive();
                assertThat(status.getLastState().getTerminated().getExitCode()).isZero();
            });
        });

        assertThat(jobs().withName("restarted").get().getStatus().getActive()).isEqualTo(1);

        Files.writeString(data.resolve("go"), "");
        Job done = awaitCondition("restarted", "Complete");

        assertThat(done.getStatus().getFailed()).as("a sidecar's restarts are not failures of the pod").isNull();
        assertThat(onlyPod(done).getStatus().getPhase()).isEqualTo("Succeeded");
    }

    private static Container sidecar(Container container) {
        container.setRestartPolicy("Always");
        return container;
    }

    /** The containers (init ones included) in the order the watch first saw each running. */
    private List<String> firstRunning() {
        List<String> order = new ArrayList<>();
        for (Pod pod : seen) {
            if (pod.getStatus() == null) {
                continue;
            }
            List<ContainerStatus> statuses = new ArrayList<>();
            if (pod.getStatus().getInitContainerStatuses() != null) {
                statuses.addAll(pod.getStatus().getInitContainerStatuses());
            }
            if (pod.getStatus().getContainerStatuses() != null) {
                statuses.addAll(pod.getStatus().getContainerStatuses());
            }
            statuses.stream().filter(s -> s.getState().getRunning() != null && !order.contains(s.getName()))
                    .forEach(s -> order.add(s.getName()));
        }
        return order;
    }

    private List<ContainerStatus> seenInit(String name) {
        return seen.stream().filter(pod -> pod.getStatus() != null && pod.getStatus().getInitContainerStatuses() != null)
                .flatMap(pod -> pod.getStatus().getInitContainerStatuses().stream())
                .filter(status -> name.equals(status.getName())).toList();
    }

    private static ContainerStatus initStatus(Pod pod, String name) {
        return pod.getStatus().getInitContainerStatuses().stream().filter(s -> name.equals(s.getName())).findFirst()
                .orElseThrow();
    }

    private static long stop(Path file) throws IOException {
        return Files.readAllLines(file).stream().filter(line -> line.startsWith("stop ")).findFirst()
                .map(line -> Long.parseLong(line.substring("stop ".length()))).orElseThrow();
    }

    private static int runs(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    }
}
