package org.carla.leaderboard.localstack.kubernetes;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;

/**
 * The kubelet's view of one container of a pod; changed only on its pod's thread ({@code process} read anywhere).
 * {@code restarts} is the container's {@code restartCount}: it grows when the kubelet starts the container again, not
 * when it exits (a container waiting in CrashLoopBackOff shows the count of the run that failed). A sidecar is an init
 * container with {@code restartPolicy: Always} (a restartable init container): it is ready while it runs.
 */
final class ContainerRun {

    final Container spec;
    final boolean init;
    final boolean sidecar;
    int restarts;
    volatile Process process;
    /** The current run's {@link ContainerProcesses} id; null before the first start. */
    volatile String runId;
    /** Why the runner killed the current run (OOMKilled, Error), for its terminated state; null otherwise. */
    String killReason;
    ContainerState state = waiting("PodInitializing", null);
    ContainerState lastState = new ContainerState();
    String startedAt;
    boolean succeeded;
    /** Failed pulls of its image so far (the kubelet's image back-off). */
    int pulls;

    ContainerRun(Container spec, boolean init) {
        this.spec = spec;
        this.init = init;
        this.sidecar = init && "Always".equals(spec.getRestartPolicy());
    }

    String name() {
        return spec.getName();
    }

    void running(Process started, String now) {
        process = started;
        startedAt = now;
        state = new ContainerStateBuilder().withNewRunning().withStartedAt(now).endRunning().build();
    }

    ContainerState terminated(int exitCode, String reason, String message, String finishedAt) {
        return new ContainerStateBuilder().withNewTerminated().withExitCode(exitCode).withReason(reason)
                .withMessage(message).withStartedAt(startedAt).withFinishedAt(finishedAt).endTerminated().build();
    }

    /** Running now, or ran before (a terminated state, now or as its last state). */
    boolean everStarted() {
        return state.getRunning() != null || state.getTerminated() != null || lastState.getTerminated() != null;
    }

    /** Its restart waits on a failure: the kubelet's phase counts it as stopped, not as never started. */
    boolean stopped() {
        return state.getTerminated() != null || (state.getWaiting() != null && lastState.getTerminated() != null);
    }

    boolean waitingToStart() {
        return state.getWaiting() != null && lastState.getTerminated() == null;
    }

    ContainerStatus status() {
        Process current = process;
        return new ContainerStatusBuilder().withName(spec.getName()).withImage(spec.getImage())
                .withImageID(everStarted() || current != null ? imageId(spec.getImage()) : "")
                .withRestartCount(restarts).withState(state).withLastState(lastState)
                .withReady(current != null && (!init || sidecar)).withStarted(current != null)
                .withContainerID(current == null ? null : "local://" + current.pid()).build();
    }

    /**
     * The kubelet's {@code imageID} of a pulled image: the repository by digest ({@code name@sha256:<hex>}), as
     * containerd reports it; empty until the image is pulled. A reference by digest keeps its digest; a tag stands for
     * the SHA-256 of its reference here, where no registry answers (the same tag, the same digest).
     */
    static String imageId(String image) {
        int at = image.indexOf('@');
        if (at >= 0) {
            return image;
        }
        int slash = image.lastIndexOf('/');
        int colon = image.lastIndexOf(':');
        String repository = colon > slash ? image.substring(0, colon) : image;
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(image.getBytes(StandardCharsets.UTF_8));
            return repository + "@sha256:" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
    }

    static ContainerState waiting(String reason, String message) {
        return new ContainerStateBuilder().withNewWaiting().withReason(reason).withMessage(message).endWaiting().build();
    }
}
