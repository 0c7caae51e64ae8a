package org.carla.leaderboard.console;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.pod.JobLabels;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.kubernetes.KubernetesApiServer;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;

/**
 * A submission's Job and pod in the stack's API server, as job-launcher and the kubelet leave them (labels, and a
 * status written through {@code /status}), in the submissions namespace; the tests' stack runs no Job runner
 * ({@code local-stack.kubernetes.job-runner=off}): the test plays the Job controller and the kubelet. The layout is
 * job-launcher's: {@code restartPolicy: Never}, the pairs as native sidecars (init containers with
 * {@code restartPolicy: Always}, their statuses among the init containers'), {@code logcopy} the one container.
 */
final class GivenCluster {

    static final String NAMESPACE = KubernetesApiServer.SUBMISSIONS_NAMESPACE;
    private static final String LOGCOPY = "logcopy";
    private static final String POD_RUNTIME = "carla-leaderboard/pod-runtime:latest";

    private GivenCluster() {
    }

    static void job(RunningStack stack, String name, String submissionId, int run, String condition, Instant endedAt) {
        var labels = Map.of(JobLabels.MANAGED_BY, JobLabels.LAUNCHER, JobLabels.SUBMISSION_ID, submissionId,
                JobLabels.RUN, Integer.toString(run));
        var job = new JobBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE).withLabels(labels)
                .endMetadata().withNewSpec().withNewTemplate().withNewSpec().withRestartPolicy("Never")
                .addNewContainer().withName(LOGCOPY).withImage(POD_RUNTIME).endContainer()
                .endSpec().endTemplate().endSpec().build();
        var client = stack.kubernetes().batch().v1().jobs().inNamespace(NAMESPACE);
        var created = client.resource(job).create();
        if (condition != null) {
            created.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder().addNewCondition()
                    .withType(condition).withStatus("True").withLastTransitionTime(endedAt.toString()).endCondition()
                    .withCompletionTime(endedAt.toString()).build());
            client.resource(created).updateStatus();
        }
    }

    static void pod(RunningStack stack, String jobName, String submissionId, String phase, Instant startedAt,
            int gpusPerWorker, List<ContainerStatus> containers) {
        var labels = Map.of(JobLabels.SUBMISSION_ID, submissionId, JobLabels.JOB_NAME, jobName, "job-name", jobName);
        var pod = new PodBuilder().withNewMetadata().withName(jobName + "-abcde").withNamespace(NAMESPACE)
                .withLabels(labels).endMetadata().withNewSpec().withRestartPolicy("Never")
                .addToInitContainers(sidecar("simulator-1", gpusPerWorker), sidecar("agent-1", 0),
                        sidecar("simulator-2", gpusPerWorker), sidecar("agent-2", 0))
                .addNewContainer().withName(LOGCOPY).withImage(POD_RUNTIME).endContainer().endSpec().build();
        create(stack, pod, phase, startedAt, containers);
    }

    /** The pod {@code name} of completion index {@code index} of an Indexed Job of one pair per pod. */
    static void indexedPod(RunningStack stack, String jobName, String name, String submissionId, int index,
            String phase, Instant startedAt, List<ContainerStatus> containers) {
        var labels = Map.of(JobLabels.SUBMISSION_ID, submissionId, JobLabels.JOB_NAME, jobName, "job-name", jobName,
                JobLabels.COMPLETION_INDEX, Integer.toString(index));
        var pod = new PodBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE).withLabels(labels)
                .withAnnotations(Map.of(JobLabels.COMPLETION_INDEX, Integer.toString(index))).endMetadata()
                .withNewSpec().withRestartPolicy("Never")
                .addToInitContainers(sidecar("simulator-1", 1), sidecar("agent-1", 0))
                .addNewContainer().withName(LOGCOPY).withImage(POD_RUNTIME).endContainer().endSpec().build();
        create(stack, pod, phase, startedAt, containers);
    }

    /** Creates the pod, then writes its status: the pairs' among the init containers', logcopy's as the container's. */
    private static void create(RunningStack stack, io.fabric8.kubernetes.api.model.Pod pod, String phase,
            Instant startedAt, List<ContainerStatus> containers) {
        var client = stack.kubernetes().pods().inNamespace(NAMESPACE);
        var created = client.resource(pod).create();
        created.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase(phase)
                .withStartTime(startedAt == null ? null : startedAt.toString())
                .withInitContainerStatuses(containers.stream().filter(c -> !LOGCOPY.equals(c.getName())).toList())
                .withContainerStatuses(containers.stream().filter(c -> LOGCOPY.equals(c.getName())).toList())
                .build());
        client.resource(created).updateStatus();
    }

    static ContainerStatus ended(String name, int exitCode, Instant startedAt, Instant finishedAt) {
        return new ContainerStatusBuilder().withName(name).withRestartCount(0).withNewState().withNewTerminated()
                .withExitCode(exitCode).withReason(exitCode == 0 ? "Completed" : "Error")
                .withStartedAt(startedAt.toString()).withFinishedAt(finishedAt.toString()).endTerminated().endState()
                .build();
    }

    static ContainerStatus running(String name, int restarts, Instant since) {
        return new ContainerStatusBuilder().withName(name).withRestartCount(restarts).withNewState().withNewRunning()
                .withStartedAt(since.toString()).endRunning().endState().build();
    }

    static ContainerStatus backingOff(String name, int restarts) {
        return new ContainerStatusBuilder().withName(name).withRestartCount(restarts).withNewState().withNewWaiting()
                .withReason("CrashLoopBackOff").endWaiting().endState().build();
    }

    private static io.fabric8.kubernetes.api.model.Container sidecar(String name, int gpus) {
        var container = new ContainerBuilder().withName(name).withImage("registry.local/x:1")
                .withRestartPolicy("Always");
        if (gpus > 0) {
            container.withNewResources().addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
                    .endResources();
        }
        return container.build();
    }
}
