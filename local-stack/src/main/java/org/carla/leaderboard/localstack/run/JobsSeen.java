package org.carla.leaderboard.localstack.run;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.carla.leaderboard.domain.pod.JobLabels;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;

/**
 * Every Job the API server held while watched, by submission and run (the labels job-launcher puts on them): a run
 * with two Job uids had two Jobs, whether or not at the same time. A watch, so a Job that lived between two looks is
 * seen too; reopened if it closes.
 */
public final class JobsSeen implements AutoCloseable {

    private final KubernetesClient kubernetes;
    private final String namespace;
    /** "submission run N" → Job uids. */
    private final Map<String, Set<String>> uids = new ConcurrentHashMap<>();
    private volatile Watch watch;
    private volatile boolean closed;

    public JobsSeen(KubernetesClient kubernetes, String namespace) {
        this.kubernetes = kubernetes;
        this.namespace = namespace;
        open();
    }

    private void open() {
        watch = kubernetes.batch().v1().jobs().inNamespace(namespace).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Job job) {
                see(job);
            }

            @Override
            public void onClose(WatcherException cause) {
                if (!closed) {
                    open();
                }
            }
        });
        kubernetes.batch().v1().jobs().inNamespace(namespace).list().getItems().forEach(this::see);
    }

    private void see(Job job) {
        var labels = job.getMetadata().getLabels();
        if (labels == null || job.getMetadata().getUid() == null) {
            return;
        }
        String key = labels.getOrDefault(JobLabels.SUBMISSION_ID, "?") + " run "
                + labels.getOrDefault(JobLabels.RUN, "?");
        uids.computeIfAbsent(key, ignored -> ConcurrentHashMap.newKeySet()).add(job.getMetadata().getUid());
    }

    /** Job uids per "submission run N", sorted. */
    public Map<String, Set<String>> byRun() {
        return new TreeMap<>(uids);
    }

    /** The runs that had more than one Job. */
    public Map<String, Set<String>> runsWithTwoJobs() {
        var twice = new TreeMap<String, Set<String>>();
        uids.forEach((run, jobs) -> {
            if (jobs.size() > 1) {
                twice.put(run, Set.copyOf(jobs));
            }
        });
        return twice;
    }

    public int jobs() {
        return uids.values().stream().mapToInt(Set::size).sum();
    }

    @Override
    public void close() {
        closed = true;
        if (watch != null) {
            watch.close();
        }
    }
}
