package org.carla.leaderboard.launcher.service;

import java.util.List;
import java.util.Optional;
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
import org.carla.leaderboard.launcher.job.PodStart;
import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * Watches the launcher's Jobs (label {@code app.kubernetes.io/managed-by=job-launcher}) and their pods (label
 * {@code leaderboard.carla.org/workload=submission}, read only) with two informers. A Job that ends is handed to
 * {@link JobReporter}; a pod that runs, to {@link RunStarts}; every pod seen,
 * to {@link PodEvidence}. The informers' initial lists are the restart recovery: a
 * Job that ended, or a pod that started, while the launcher was down is handled like one that does now. The work runs
 * one item at a time on one thread, off the informers' threads; what failed is tried again at the next resync (and by
 * the reconcile).
 */
@ApplicationScoped
public class JobWatcher {

    private static final Logger LOG = Logger.getLogger(JobWatcher.class);

    private final KubernetesClient kubernetes;
    private final JobReporter reporter;
    private final RunStarts starts;
    private final PodEvidence evidence;
    private final LauncherMetrics metrics;
    private final LauncherConfig config;
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final ExecutorService reports = Executors.newSingleThreadExecutor(runnable -> {
        var thread = new Thread(runnable, "job-reports");
        thread.setDaemon(true);
        return thread;
    });
    private volatile SharedIndexInformer<Job> jobs;
    private volatile SharedIndexInformer<Pod> pods;

    JobWatcher(KubernetesClient kubernetes, JobReporter reporter, RunStarts starts, PodEvidence evidence,
            LauncherMetrics metrics, LauncherConfig config) {
        this.kubernetes = kubernetes;
        this.reporter = reporter;
        this.starts = starts;
        this.evidence = evidence;
        this.metrics = metrics;
        this.config = config;
        metrics.watchRunning(this::running);
    }

    public synchronized void start() {
        if (jobs != null) {
            return;
        }
        long resync = config.watch().resync().toMillis();
        jobs = kubernetes.batch().v1().jobs().inNamespace(config.namespace())
                .withLabel(JobMetadata.MANAGED_BY, JobMetadata.LAUNCHER).runnableInformer(resync);
        jobs.addEventHandler(new JobHandler());
        pods = kubernetes.pods().inNamespace(config.namespace())
                .withLabel(JobMetadata.WORKLOAD, JobMetadata.WORKLOAD_SUBMISSION).runnableInformer(resync);
        pods.addEventHandler(new PodHandler());
        // An API server that is down at start or later is retried with the informer's back-off; readiness shows it.
        for (SharedIndexInformer<?> informer : List.of(jobs, pods)) {
            informer.exceptionHandler((started, error) -> {
                LOG.warnf("watching the Jobs or their pods failed, retrying: %s", error.getMessage());
                return true;
            });
        }
        jobs.start();
        pods.start();
        LOG.infof("watching the Jobs and their pods in namespace %s", config.namespace());
    }

    public synchronized void stop() {
        if (jobs != null) {
            jobs.close();
            pods.close();
            jobs = null;
            pods = null;
        }
    }

    /** Whether both informers have listed once and keep watching. */
    public boolean watching() {
        SharedIndexInformer<Job> currentJobs = jobs;
        SharedIndexInformer<Pod> currentPods = pods;
        return currentJobs != null && currentJobs.hasSynced() && currentJobs.isWatching() && currentPods != null
                && currentPods.hasSynced() && currentPods.isWatching();
    }

    /** The launcher's Jobs as last seen, from the informer's cache; empty while it is not watching. */
    public List<Job> jobs() {
        SharedIndexInformer<Job> current = jobs;
        return current == null ? List.of() : current.getStore().list();
    }

    /** The pods of a Job as last seen, from the informer's cache. */
    public List<Pod> podsOf(String jobName) {
        SharedIndexInformer<Pod> current = pods;
        if (current == null) {
            return List.of();
        }
        return current.getStore().list().stream().filter(pod -> jobName.equals(jobNameOf(pod))).toList();
    }

    /** The Jobs not finished yet, from the informer's cache. */
    public int running() {
        return (int) jobs().stream().filter(job -> !JobEnd.ending(job)).count();
    }

    /** Hands an ending (or ended and unreported) Job to the reporter, unless it is waiting for it already. */
    public void settle(Job job) {
        String name = job.getMetadata().getName();
        submit("end:" + name, () -> reporter.settle(name), "reporting the end of Job " + name);
    }

    /** Hands a Job whose pod runs to {@link RunStarts}, unless its start was announced or it is ending. */
    public void announce(String jobName) {
        Optional<Job> cached = cachedJob(jobName);
        if (cached.isPresent() && (JobMetadata.startReported(cached.get()).isPresent() || JobEnd.ending(cached.get()))) {
            return;
        }
        submit("start:" + jobName, () -> starts.announce(jobName), "announcing the start of Job " + jobName);
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

    private void submit(String key, Runnable work, String what) {
        if (!pending.add(key)) {
            return;
        }
        reports.execute(() -> {
            pending.remove(key);
            try {
                work.run();
            } catch (RuntimeException e) {
                metrics.reportFailed();
                LOG.errorf("%s failed, trying again at the next resync: %s", what, e.getMessage());
            }
        });
    }

    private void examine(Job job) {
        if (JobEnd.ending(job) || JobMetadata.finishedReported(job)) {
            settle(job);
        }
    }

    private void vanished(Job job) {
        reports.execute(() -> {
            try {
                reporter.vanished(job);
                evidence.forget(job.getMetadata().getName());
            } catch (RuntimeException e) {
                metrics.reportFailed();
                LOG.errorf("Job %s disappeared and its end could not be reported: %s", job.getMetadata().getName(),
                        e.getMessage());
            }
        });
    }

    private void examine(Pod pod) {
        String jobName = jobNameOf(pod);
        if (jobName == null || PodStart.of(pod).isEmpty()) {
            return;
        }
        Optional<Job> cached = cachedJob(jobName);
        String podName = pod.getMetadata().getName();
        if (cached.isPresent() && JobMetadata.startReported(cached.get()).isPresent()) {
            if (!JobEnd.ending(cached.get()) && !starts.imagesRecorded(podName)) {
                submit("images:" + podName, () -> starts.recordImages(cached.get(), pod),
                        "recording the images of pod " + podName);
            }
            return;
        }
        announce(jobName);
    }

    private Optional<Job> cachedJob(String jobName) {
        return jobs().stream().filter(job -> jobName.equals(job.getMetadata().getName())).findFirst();
    }

    private static String jobNameOf(Pod pod) {
        var labels = pod.getMetadata() == null ? null : pod.getMetadata().getLabels();
        return labels == null ? null : labels.get(JobMetadata.POD_JOB_NAME);
    }

    private final class JobHandler implements ResourceEventHandler<Job> {

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

    private final class PodHandler implements ResourceEventHandler<Pod> {

        @Override
        public void onAdd(Pod pod) {
            evidence.seen(pod);
            examine(pod);
        }

        @Override
        public void onUpdate(Pod before, Pod pod) {
            evidence.seen(pod);
            examine(pod);
        }

        @Override
        public void onDelete(Pod pod, boolean finalStateUnknown) {
            // The run's end is its Job's; what the pod was is kept for its report (the controller deletes pods first).
            evidence.seen(pod);
            starts.forget(pod.getMetadata().getName());
        }
    }
}
