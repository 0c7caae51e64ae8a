package org.carla.leaderboard.launcher.service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.launcher.job.JobMetadata;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * What the pod watch saw of each Job's pods, kept until the Job is gone, because the cluster does not keep it: the Job
 * controller deletes a failed Job's active pods before it marks the Job Failed (1.31), and a deleted pod's last status
 * is the kubelet's kill of it. So each pod is remembered as it was last seen before its deletion began — its restart
 * counts and how its containers last ended — for the report of the Job's end; and a container whose image cannot be
 * pulled is remembered from the first time it was seen so, with the runtime's reason ({@code ErrImagePull}'s message,
 * not {@code ImagePullBackOff}'s "Back-off pulling image"). A launcher started after the pods were gone knows none of
 * this: its report then has what the API still shows.
 */
@ApplicationScoped
public class PodEvidence {

    private static final String ERR_IMAGE_PULL = "ErrImagePull";
    private static final int MOST_JOBS = 10_000;

    /** A container that could not pull its image since {@code since}: the image and the runtime's last reason. */
    public record PullFailure(String container, String image, String message, Instant since) {
    }

    private final Map<String, Map<String, Pod>> podsByJob = bounded();
    private final Map<String, Map<String, PullFailure>> pullsByJob = new LinkedHashMap<>();
    private final Map<String, Map<String, Instant>> deletionsByJob = bounded();

    /** At most {@code MOST_JOBS} Jobs, the eldest forgotten first: a Job never seen gone cannot fill the memory. */
    private static <V> Map<String, V> bounded() {
        return new LinkedHashMap<>(64, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > MOST_JOBS;
            }
        };
    }

    /** A pod as the watch delivered it (added, updated, or deleted with its last state). */
    public synchronized void seen(Pod pod) {
        String job = jobOf(pod);
        if (job == null) {
            return;
        }
        Map<String, Pod> pods = podsByJob.computeIfAbsent(job, j -> new LinkedHashMap<>());
        String name = pod.getMetadata().getName();
        Pod known = pods.get(name);
        boolean deleting = pod.getMetadata().getDeletionTimestamp() != null;
        if (known == null || !deleting || known.getMetadata().getDeletionTimestamp() != null) {
            pods.put(name, pod);
        }
        if (deleting) {
            deletionsByJob.computeIfAbsent(job, j -> new LinkedHashMap<>()).putIfAbsent(name, Instant.now());
        }
        if (!deleting) {
            notePulls(job, pod);
        }
    }

    /** Every pod of the Job seen, each as it was before its deletion began. */
    public synchronized List<Pod> pods(String jobName) {
        return new ArrayList<>(podsByJob.getOrDefault(jobName, Map.of()).values());
    }

    /** When the watch first saw each of the Job's pods being deleted, by pod name. */
    public synchronized Map<String, Instant> deletionsSeen(String jobName) {
        return Map.copyOf(deletionsByJob.getOrDefault(jobName, Map.of()));
    }

    /** The containers of the Job's pods that cannot pull their image now, the longest-failing first. */
    public synchronized List<PullFailure> pullFailures(String jobName) {
        return pullsByJob.getOrDefault(jobName, Map.of()).values().stream()
                .sorted((a, b) -> a.since().compareTo(b.since())).toList();
    }

    /** The Job is gone: nothing of it is needed any more. */
    public synchronized void forget(String jobName) {
        podsByJob.remove(jobName);
        pullsByJob.remove(jobName);
        deletionsByJob.remove(jobName);
    }

    private void notePulls(String job, Pod pod) {
        Map<String, PullFailure> pulls = pullsByJob.computeIfAbsent(job, j -> new LinkedHashMap<>());
        for (ContainerStatus status : statuses(pod)) {
            String key = pod.getMetadata().getName() + "/" + status.getName();
            var waiting = status.getState() == null ? null : status.getState().getWaiting();
            if (waiting == null || !ContainerOutcome.PULL_FAILURES.contains(waiting.getReason())) {
                pulls.remove(key);
                continue;
            }
            PullFailure known = pulls.get(key);
            String message = ERR_IMAGE_PULL.equals(waiting.getReason()) || known == null ? waiting.getMessage()
                    : known.message();
            pulls.put(key, new PullFailure(status.getName(), status.getImage(), message,
                    known == null ? Instant.now() : known.since()));
        }
        if (pulls.isEmpty()) {
            pullsByJob.remove(job);
        }
    }

    private static List<ContainerStatus> statuses(Pod pod) {
        List<ContainerStatus> all = new ArrayList<>();
        if (pod.getStatus() != null) {
            Optional.ofNullable(pod.getStatus().getInitContainerStatuses()).ifPresent(all::addAll);
            Optional.ofNullable(pod.getStatus().getContainerStatuses()).ifPresent(all::addAll);
        }
        return all;
    }

    private static String jobOf(Pod pod) {
        var labels = pod.getMetadata() == null ? null : pod.getMetadata().getLabels();
        return labels == null ? null : labels.get(JobMetadata.POD_JOB_NAME);
    }
}
