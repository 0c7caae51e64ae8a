package org.carla.leaderboard.console.client;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.console.config.ConsoleConfig;
import org.carla.leaderboard.domain.pod.JobLabels;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The submissions' Jobs and pods, read only (RBAC: list on jobs and pods of the submissions namespace): one list
 * of each per look, selected by the labels job-launcher puts on them ({@link JobLabels}).
 */
@ApplicationScoped
public class Cluster {

    private final KubernetesClient kubernetes;
    private final String namespace;
    private final String gpuResource;

    Cluster(KubernetesClient kubernetes, ConsoleConfig config) {
        this.kubernetes = kubernetes;
        this.namespace = config.namespace();
        this.gpuResource = config.gpuResource();
    }

    /** A submission's Job: which run, whether it still runs, and when and how it ended. */
    public record JobView(String name, String submissionId, Integer run, boolean active, String condition,
            Instant endedAt, Instant createdAt) {
    }

    /** One container of a pod as the kubelet reports it. */
    public record ContainerView(String name, String state, String reason, Integer exitCode, int restartCount,
            Instant startedAt, Instant finishedAt) {
    }

    /**
     * A submission's pod: its phase (Pending while it waits for capacity), start, containers, GPUs, and its completion
     * index in a run of several pods ({@code null} otherwise).
     */
    public record PodView(String name, String jobName, String submissionId, String phase, Instant startedAt,
            List<ContainerView> containers, int gpus, Integer index) {

        /** When it stopped holding its node: its containers' last end once it ended, else {@code null}. */
        public Instant endedAt() {
            if (!"Succeeded".equals(phase) && !"Failed".equals(phase)) {
                return null;
            }
            return containers.stream().map(ContainerView::finishedAt).filter(java.util.Objects::nonNull)
                    .max(Instant::compareTo).orElse(startedAt);
        }
    }

    public List<JobView> jobs() {
        var jobs = new ArrayList<JobView>();
        for (Job job : kubernetes.batch().v1().jobs().inNamespace(namespace)
                .withLabel(JobLabels.MANAGED_BY, JobLabels.LAUNCHER).list().getItems()) {
            jobs.add(view(job));
        }
        return jobs;
    }

    public List<PodView> pods() {
        var pods = new ArrayList<PodView>();
        for (Pod pod : kubernetes.pods().inNamespace(namespace).withLabel(JobLabels.SUBMISSION_ID).list().getItems()) {
            pods.add(view(pod));
        }
        return pods;
    }

    static JobView view(Job job) {
        Map<String, String> labels = job.getMetadata().getLabels() == null ? Map.of() : job.getMetadata().getLabels();
        String condition = null;
        Instant endedAt = null;
        var status = job.getStatus();
        if (status != null && status.getConditions() != null) {
            for (JobCondition c : status.getConditions()) {
                if ("True".equals(c.getStatus()) && ("Complete".equals(c.getType()) || "Failed".equals(c.getType()))) {
                    condition = c.getType() + (c.getReason() == null ? "" : " (" + c.getReason() + ")");
                    endedAt = time(c.getLastTransitionTime());
                }
            }
        }
        if (endedAt == null && status != null && condition != null) {
            endedAt = time(status.getCompletionTime());
        }
        boolean deleting = job.getMetadata().getDeletionTimestamp() != null;
        return new JobView(job.getMetadata().getName(), labels.get(JobLabels.SUBMISSION_ID), integer(labels.get(
                JobLabels.RUN)), condition == null && !deleting, deleting && condition == null ? "Deleting" : condition,
                endedAt, time(job.getMetadata().getCreationTimestamp()));
    }

    PodView view(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
        var containers = new ArrayList<ContainerView>();
        Instant startedAt = null;
        String phase = null;
        if (pod.getStatus() != null) {
            phase = pod.getStatus().getPhase();
            startedAt = time(pod.getStatus().getStartTime());
            // The pairs may run as sidecars (init containers with restartPolicy Always): listed with the rest.
            Set<String> sidecars = sidecars(pod).stream().map(Container::getName).collect(Collectors.toSet());
            for (ContainerStatus status : Objects.requireNonNullElse(pod.getStatus().getInitContainerStatuses(),
                    List.<ContainerStatus>of())) {
                if (sidecars.contains(status.getName())) {
                    containers.add(container(status));
                }
            }
            if (pod.getStatus().getContainerStatuses() != null) {
                for (ContainerStatus status : pod.getStatus().getContainerStatuses()) {
                    containers.add(container(status));
                }
            }
        }
        int gpus = 0;
        if (pod.getSpec() != null && pod.getSpec().getContainers() != null) {
            var running = new ArrayList<>(sidecars(pod));
            running.addAll(pod.getSpec().getContainers());
            for (var container : running) {
                var resources = container.getResources();
                Quantity limit = resources == null || resources.getLimits() == null ? null
                        : resources.getLimits().get(gpuResource);
                Integer count = limit == null ? null : integer(limit.getAmount());
                gpus += count == null ? 0 : count;
            }
        }
        String jobName = labels.getOrDefault(JobLabels.JOB_NAME, labels.get("job-name"));
        var annotations = pod.getMetadata().getAnnotations() == null ? Map.<String, String>of()
                : pod.getMetadata().getAnnotations();
        return new PodView(pod.getMetadata().getName(), jobName, labels.get(JobLabels.SUBMISSION_ID), phase, startedAt,
                containers, gpus, index(annotations.getOrDefault(JobLabels.COMPLETION_INDEX,
                        labels.get(JobLabels.COMPLETION_INDEX))));
    }

    /** The init containers of the pod that run beside its containers for its life: restartPolicy Always. */
    private static List<Container> sidecars(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getInitContainers() == null) {
            return List.of();
        }
        return pod.getSpec().getInitContainers().stream().filter(c -> "Always".equals(c.getRestartPolicy())).toList();
    }

        private static ContainerView container(ContainerStatus status) {
        var state = status.getState();
        if (state != null && state.getRunning() != null) {
            return new ContainerView(status.getName(), "running", null, null, orZero(status.getRestartCount()),
                    time(state.getRunning().getStartedAt()), null);
        }
        if (state != null && state.getTerminated() != null) {
            var t = state.getTerminated();
            return new ContainerView(status.getName(), "terminated", t.getReason(), t.getExitCode(),
                    orZero(status.getRestartCount()), time(t.getStartedAt()), time(t.getFinishedAt()));
        }
        String reason = state != null && state.getWaiting() != null ? state.getWaiting().getReason() : null;
        return new ContainerView(status.getName(), "waiting", reason, null, orZero(status.getRestartCount()), null,
                null);
    }

    private static int orZero(Integer value) {
        return value == null ? 0 : value;
    }

    private static Integer index(String text) {
        Integer index = integer(text);
        return index == null || index < 0 ? null : index;
    }

    private static Integer integer(String text) {
        try {
            return text == null ? null : Integer.valueOf(text.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Instant time(String text) {
        try {
            return text == null || text.isBlank() ? null : Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
