package org.carla.leaderboard.benchmarks;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.carla.leaderboard.domain.pod.JobLabels;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;

/**
 * When each submission's Job appeared on the API server (epoch µs of its ADDED event on the harness's watch), by the
 * submission id job-launcher labels it with ({@link JobLabels#SUBMISSION_ID}).
 */
final class JobArrivals implements AutoCloseable {

    private final Map<Long, Long> arrived = new ConcurrentHashMap<>();
    private final java.util.Queue<String> closes = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final KubernetesClient client;
    private final String namespace;
    private final Watch watch;

    JobArrivals(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
        watch = client.batch().v1().jobs().inNamespace(namespace).watch(new Watcher<Job>() {
            @Override
            public void eventReceived(Action action, Job job) {
                long now = Clock.micros();
                Long pk = submission(job);
                if (action == Action.ADDED && pk != null) {
                    arrived.putIfAbsent(pk, now);
                }
            }

            @Override
            public void onClose(WatcherException cause) {
                // The watch ended with an error (the benchmark's own close ends it without one): said by its failure.
                closes.add(String.valueOf(cause.getMessage()));
            }
        });
    }

    private static Long submission(Job job) {
        var labels = job.getMetadata().getLabels();
        String id = labels == null ? null : labels.get(JobLabels.SUBMISSION_ID);
        return id != null && id.matches("\\d+") ? Long.parseLong(id) : null;
    }

    /** The submission ids of every Job on the API server now, in the watched namespace. */
    List<Long> submissionsListed() {
        return client.batch().v1().jobs().inNamespace(namespace).list().getItems().stream()
                .map(JobArrivals::submission).filter(java.util.Objects::nonNull).toList();
    }

    /** The errors the server closed the watch with, if it did (the watch then tells no more). */
    List<String> closedWith() {
        return List.copyOf(closes);
    }

    /** When the Job of submission {@code pk} appeared, or null. */
    Long at(long pk) {
        return arrived.get(pk);
    }

    /** How many of {@code pks} have their Job. */
    long count(Collection<Long> pks) {
        return pks.stream().filter(arrived::containsKey).count();
    }

    /** Waits until every one of {@code pks} has its Job, or {@code timeout} passed; whether they all have. */
    boolean await(Collection<Long> pks, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count(pks) < pks.size()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    @Override
    public void close() {
        watch.close();
    }
}
