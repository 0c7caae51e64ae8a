package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/**
 * Containers as the users their securityContext names, as in the cluster (the runner must be root, as on this
 * machine and in CI; elsewhere these tests are skipped and containers run as the runner's user).
 */
class ContainerUsersTests extends LocalJobRunnerFixture {

    @Test
    void aStatusFileWrittenOwnerOnlyByOneUserIsUnreadableByAnotherAndAPlainLogIsReadable() throws IOException {
        assumeTrue(ContainerUser.switcher().isPresent(), "switching users needs root and util-linux setpriv");
        Container writer = program("writer", "files", "/data/status", "/data/writer.txt");
        writer.setSecurityContext(new SecurityContextBuilder().withRunAsUser(1001L).withRunAsGroup(1001L)
                .withAllowPrivilegeEscalation(false).build());
        Container reader = program("reader", "read", "/data/status", "/data/reader.txt");
        reader.setSecurityContext(new SecurityContextBuilder().withRunAsUser(1002L).build());
        Job job = job("users", 0, null, List.of(program("status-dir", "mkdir", "/data/status"), writer),
                List.of(reader));
        job.getSpec().getTemplate().getSpec().setSecurityContext(new PodSecurityContextBuilder().withRunAsUser(1003L)
                .withRunAsGroup(1003L).withFsGroup(2000L).withSupplementalGroups(3000L).build());
        client.batch().v1().jobs().resource(job).create();

        awaitCondition("users", "Complete");

        Path data = volume("users", "data");
        assertThat(Files.readAllLines(data.resolve("writer.txt"))).contains("Uid: 1001 1001 1001 1001",
                "Gid: 1001 1001 1001 1001", "Groups: 2000 3000", "NoNewPrivs: 1", "Umask: 0022");
        // The container's runAsUser wins over the pod's; the pod's runAsGroup applies.
        assertThat(Files.readAllLines(data.resolve("reader.txt"))).containsExactly("agent-1.done: denied",
                "leaderboard.log: read", "Umask: 0022", "Uid: 1002 1002 1002 1002", "Gid: 1003 1003 1003 1003",
                "Groups: 2000 3000", "NoNewPrivs: 0");
        Path status = data.resolve("status");
        assertThat(Files.getAttribute(status.resolve("agent-1.done"), "unix:uid")).isEqualTo(1001);
        assertThat(Files.getPosixFilePermissions(status.resolve("agent-1.done")))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(status.resolve("leaderboard.log")))
                .isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
        // The emptyDir: world-writable, group fsGroup with setgid, so files in it get the group.
        assertThat(Files.getAttribute(data, "unix:mode")).isEqualTo(040000 | 02777);
        assertThat(Files.getAttribute(data, "unix:gid")).isEqualTo(2000);
        assertThat(Files.getAttribute(data.resolve("writer.txt"), "unix:gid")).isEqualTo(2000);
    }

    @Test
    void refusesToRunAsRootWithRunAsNonRootAsTheKubeletDoes() {
        assumeTrue(ContainerUser.switcher().isPresent(), "switching users needs root and util-linux setpriv");
        Container imageUser = host("image-user", "/bin/true");
        Container explicitRoot = host("explicit-root", "/bin/true");
        explicitRoot.setSecurityContext(new SecurityContextBuilder().withRunAsUser(0L).build());
        Job job = job("non-root", 0, 3L, List.of(), List.of(imageUser, explicitRoot));
        job.getSpec().getTemplate().getSpec().setSecurityContext(new PodSecurityContextBuilder().withRunAsNonRoot(true)
                .build());
        Job created = client.batch().v1().jobs().resource(job).create();

        // Read while it waits: the controller deletes a failing Job's pods before it marks the Job Failed (1.31).
        await().atMost(Duration.ofSeconds(60)).until(() -> client.pods().withLabel("controller-uid",
                created.getMetadata().getUid()).list().getItems().stream().anyMatch(p -> p.getStatus() != null
                        && p.getStatus().getContainerStatuses() != null && p.getStatus().getContainerStatuses().size() == 2
                        && p.getStatus().getContainerStatuses().stream().allMatch(c -> c.getState().getWaiting() != null
                                && "CreateContainerConfigError".equals(c.getState().getWaiting().getReason()))));
        var pod = onlyPod(created);
        Job failed = awaitCondition("non-root", "Failed");
        assertThat(condition(failed, "Failed").getReason()).isEqualTo("DeadlineExceeded");
        var image = containerStatus(pod, "image-user").getState().getWaiting();
        assertThat(image.getReason()).isEqualTo("CreateContainerConfigError");
        assertThat(image.getMessage()).isEqualTo("container has runAsNonRoot and image will run as root (pod: \""
                + pod.getMetadata().getName() + "_submissions(" + pod.getMetadata().getUid()
                + ")\", container: image-user)");
        assertThat(containerStatus(pod, "explicit-root").getState().getWaiting().getMessage())
                .startsWith("container's runAsUser breaks non-root policy (pod: ");
    }

    @Test
    void aContainerWithoutRunAsUserRunsAsItsImageUser() throws IOException {
        assumeTrue(ContainerUser.switcher().isPresent(), "switching users needs root and util-linux setpriv");
        Job job = job("image-user", 0, null, List.of(),
                List.of(participant("agent", "identity", "/data/agent.txt")));
        job.getSpec().getTemplate().getSpec().setSecurityContext(new PodSecurityContextBuilder().withRunAsNonRoot(true)
                .build());
        client.batch().v1().jobs().resource(job).create();

        awaitCondition("image-user", "Complete");

        assertThat(Files.readAllLines(volume("image-user", "data").resolve("agent.txt")))
                .contains("Uid: 4242 4242 4242 4242", "Gid: 4343 4343 4343 4343", "Groups:");
    }
}
