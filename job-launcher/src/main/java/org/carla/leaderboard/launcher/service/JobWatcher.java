package org.carla.leaderboard.launcher.service;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.launcher.job.JobEnd;
import org.carla.leaderboard.launcher.job.JobMetadata;
import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * Watches the launcher's Jobs (label {@code app.kubernetes.io/managed-by=job-launcher}) with an informer. Its initial
 * list is the restart recovery: a Job that ended while the launcher was down is reported like one ending now. Reports
 * run one at a time off the informer's thread; a report that failed is tried again at the next resync.
 */
@ApplicationScoped
public class JobWatcher {

    private static final Logger LOG = Logger.getLogger(JobWatcher.class);

    private final KubernetesClient kubernetes;
    private final JobReporter reporter;
    private final LauncherMetrics metrics;
    private final LauncherConfig config;
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final ExecutorService reports = Executors.newSingleThreadExecutor(runnable -> {
        var thread = new Thread(runnable, "job-reports");
        thread.setDaemon(true);
        return thread;
    });
    private volatile SharedIndexInformer<Job> informer;

    JobWatcher(KubernetesClient kubernetes, JobReporter reporter, LauncherMetrics metrics, LauncherConfig config) {
        this.kubernetes = kubernetes;
        this.reporter = reporter;
        this.metrics = metrics;
        this.config = config;
        metrics.watchRunning(this::running);
    }

    public synchronized void start() {
        if (informer != null) {
            return;
        }
        informer = kubernetes.batch().v1().jobs().inNamespace(config.namespace())
                .withLabel(JobMetadata.MANAGED_BY, JobMetadata.LAUNCHER)
                .runnableInformer(config.watch().resync().toMillis());
        informer.addEventHandler(new Handler());
        // An API server that is down at start or later is retried with the informer's back-off; readiness shows it.
        informer.exceptionHandler((started, error) -> {
            LOG.warnf("watching the Jobs failed, retrying: %s", error.getMessage());
            return true;
        });
        informer.start();
        LOG.infof("watching the Jobs in namespace %s", config.namespace());
    }

    public synchronized void stop() {
        if (informer != null) {
            informer.close();
            informer = null;
        }
    }

    /** Whether the informer has listed the Jobs once and keeps watching. */
    public boolean watching() {
        SharedIndexInformer<Job> current = informer;
        return current != null && current.hasSynced() && current.isWatching();
    }

    /** The Jobs not finished yet, from the informer's cache. */
    public int running() {
        SharedIndexInformer<Job> current = informer;
        if (current == null) {
            return 0;
        }
        return (int) current.getStore().list().stream()
                .filter(job -> !JobEnd.finished(job) && job.getMetadata().getDeletionTimestamp() == null).count();
    }

    @PreDestroy
    void close() {
        stop();
        reports.shutdown();
        try {
            reports.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void examine(Job job) {
        boolean ending = JobEnd.finished(job) || job.getMetadata().getDeletionTimestamp() != null;
        if (!ending && !JobMetadata.finishedReported(job)) {
            return;
        }
        String name = job.getMetadata().getName();
        if (pending.add(name)) {
            reports.execute(() -> {
                pending.remove(name);
                try {
                    reporter.settle(name);
                } catch (RuntimeException e) {
                    metrics.reportFailed();
                    LOG.errorf("Job %s: reporting its end failed, trying again at the next resync: %s", name,
                            e.getMessage());
                }
            });
        }
    }

    private void vanished(Job job) {
        reports.execute(() -> {
            try {
                reporter.vanished(job);
            } catch (RuntimeException e) {
                metrics.reportFailed();
                LOG.errorf("Job %s disappeared and its end could not be reported: %s", job.getMetadata().getName(),
                        e.getMessage());
            }
        });
    }

    private final class Handler implements ResourceEventHandler<Job> {

        @Override
        public void onAdd(Job job) {
            examine(job);
        }

        @Override
        public void onUpdate(Job before, Job job) {
            examine(job);
        }

        @Override
        public void onDelete(Job job, boolean finalStateUnknown) {
            vanished(job);
        }
    }
}
