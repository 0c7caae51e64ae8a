package org.carla.leaderboard.localstack.kubernetes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * Plays the scheduler, the kubelet and the Job controller for one namespace: watches its Jobs with an informer, and
 * for each, the controller's part ({@link JobRun}) runs its pods as local processes ({@link PodRun}); knobs disrupt a
 * running pod as a cluster would (a container killed, the node lost, an eviction, a spot interruption): the Job's
 * latest pod on a node, or in an Indexed Job, the pod of a completion index (the variants taking an {@code index}).
 * Suspended Jobs wait until unsuspended; a Job already Complete or Failed is
 * left alone (so a restarted runner does not run it again), and deleted once its {@code ttlSecondsAfterFinished}
 * has passed (the TTL controller's part); deleting a Job stops its processes and removes its pod.
 * Closing the runner stops every process it started.
 */
public final class LocalJobRunner implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LocalJobRunner.class);

    private final LocalJobRunnerOptions options;
    private final Optional<Path> setpriv;
    private final GpuCapacity capacity;
    /** Creation order of pods, which is the order waiting pods get a GPU node in. */
    private final AtomicLong created = new AtomicLong();
    private final Map<String, JobRun> running = new ConcurrentHashMap<>();
    private final Set<String> expiring = ConcurrentHashMap.newKeySet();
    /** The TTL-after-finished controller's clock: deletes finished Jobs whose {@code ttlSecondsAfterFinished} passed. */
    private final ScheduledExecutorService ttl = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "job-ttl");
        thread.setDaemon(true);
        return thread;
    });
    private final SharedIndexInformer<Job> informer;
    private volatile boolean closed;

    private LocalJobRunner(LocalJobRunnerOptions options) {
        this.options = options;
        this.setpriv = ContainerUser.switcher();
        this.capacity = new GpuCapacity(options.gpuResource(), options.gpuCapacity());
        try {
            Files.createDirectories(options.workRoot());
            if (setpriv.isPresent()) {
                reachableByEveryUser(options.workRoot());
            } else {
                LOG.infof("containers run as this runner's user (%s), not as their securityContext says: %s",
                        System.getProperty("user.name"), ContainerUser.runnerIsRoot()
                                ? "util-linux setpriv is missing" : "switching users needs root");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the runner's work root " + options.workRoot(), e);
        }
        this.informer = options.client().batch().v1().jobs().inNamespace(options.namespace())
                .inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Job job) {
                        reconcile(job);
                    }

                    @Override
                    public void onUpdate(Job previous, Job job) {
                        reconcile(job);
                    }

                    @Override
                    public void onDelete(Job job, boolean finalStateUnknown) {
                        deleted(job);
                    }
                }, 0);
    }

    /**
     * Containers of other users must traverse the work root (made searchable here) and every folder above it, which
     * hold their volumes and, in a checkout, the programs they run. A folder above that lets no other user through (a
     * temporary folder is 0700) would fail every such container with "permission denied" after its Job was created;
     * the runner refuses to start instead, naming it.
     *
     * @throws IllegalStateException naming the folders other users cannot search
     */
    static void reachableByEveryUser(Path workRoot) throws IOException {
        int mode = (Integer) Files.getAttribute(workRoot, "unix:mode");
        Files.setAttribute(workRoot, "unix:mode", (mode & 07777) | 0111);
        List<String> closed = new ArrayList<>();
        for (Path parent = workRoot.toAbsolutePath().getParent(); parent != null; parent = parent.getParent()) {
            int parentMode = (Integer) Files.getAttribute(parent, "unix:mode");
            if ((parentMode & 0001) == 0) {
                closed.add(parent + " (mode " + Integer.toOctalString(parentMode & 07777) + ")");
            }
        }
        if (!closed.isEmpty()) {
            throw new IllegalStateException("containers run as their images' users (this runner is root), and no "
                    + "other user may search " + String.join(", ", closed) + ": they could not reach their volumes "
                    + "under " + workRoot + ". Let other users through (chmod o+x) or work from a folder they can "
                    + "enter.");
        }
    }

    /** Starts watching the options' namespace; returns once the informer has listed the existing Jobs. */
    public static LocalJobRunner start(LocalJobRunnerOptions options) {
        return new LocalJobRunner(options);
    }

    /** The operating-system processes of every pod running now, descendants included. */
    public List<ProcessHandle> processes() {
        List<ProcessHandle> handles = new ArrayList<>();
        running.values().forEach(run -> handles.addAll(run.processes()));
        return handles;
    }

    /**
     * Kills one container of a Job's running pod with SIGKILL, every process of it at once, as the OOM killer would:
     * no SIGTERM, no grace. With {@code oomKilled} its terminated state says reason {@code OOMKilled}, else
     * {@code Error}; the exit code is 137 either way. The pod's restart policy applies as to any failure (OnFailure:
     * restarted, counted against backoffLimit).
     *
     * @return false when the Job has no running container of that name
     */
    public boolean killContainer(String jobName, String container, boolean oomKilled) {
        return onPod(jobName, pod -> pod.kill(container, oomKilled ? "OOMKilled" : "Error"));
    }

    /**
     * As {@link #killContainer(String, String, boolean)}, in the pod of completion {@code index} of an Indexed Job.
     *
     * @return false when the Job has no running container of that name in a pod of that index
     */
    public boolean killContainer(String jobName, int index, String container, boolean oomKilled) {
        return onPod(jobName, index, pod -> pod.kill(container, oomKilled ? "OOMKilled" : "Error"));
    }

    /**
     * The node of the Job's running pod is lost (an instance terminated, a node that stopped answering): its processes
     * die at once, the pod garbage collector fails the pod with {@code DisruptionTarget} and deletes it; the Job
     * controller replaces it with a pod of fresh volumes, unless the Job failed meanwhile.
     *
     * @return false when the Job has no pod on a node
     */
    public boolean loseNode(String jobName) {
        return onPod(jobName, PodRun::loseNode);
    }

    /**
     * As {@link #loseNode(String)}, for the node of the pod of completion {@code index} of an Indexed Job: only that
     * pod goes, and is replaced by a pod of the same index.
     *
     * @return false when the Job has no pod of that index on a node
     */
    public boolean loseNode(String jobName, int index) {
        return onPod(jobName, index, PodRun::loseNode);
    }

    /**
     * The kubelet evicts the Job's running pod for node pressure on {@code resource} (e.g. {@code memory}): killed at
     * once, Failed, reason Evicted, {@code DisruptionTarget}; then replaced as for a lost node.
     */
    public boolean evict(String jobName, String resource) {
        return onPod(jobName, pod -> pod.evict(resource));
    }

    /** As {@link #evict(String, String)}, for the pod of completion {@code index} of an Indexed Job. */
    public boolean evict(String jobName, int index, String resource) {
        return onPod(jobName, index, pod -> pod.evict(resource));
    }

    /**
     * The node of the Job's running pod shuts down for a spot interruption: {@code DisruptionTarget}, SIGTERM to its
     * containers, SIGKILL after {@code grace}, Failed; then replaced as for a lost node.
     */
    public boolean interrupt(String jobName, Duration grace) {
        return onPod(jobName, pod -> pod.interrupt(grace));
    }

    /** As {@link #interrupt(String, Duration)}, for the node of the pod of completion {@code index}. */
    public boolean interrupt(String jobName, int index, Duration grace) {
        return onPod(jobName, index, pod -> pod.interrupt(grace));
    }

    /** The Job's latest pod on a node (a NonIndexed Job has one pod at a time). */
    private boolean onPod(String jobName, Function<PodRun, Boolean> action) {
        return jobRun(jobName).flatMap(run -> run.onCurrentPod(action)).orElse(false);
    }

    private boolean onPod(String jobName, int index, Function<PodRun, Boolean> action) {
        if (index < 0) {
            throw new IllegalArgumentException("a completion index is not negative: " + index);
        }
        return jobRun(jobName).flatMap(run -> run.onPodOfIndex(index, action)).orElse(false);
    }

    private Optional<JobRun> jobRun(String jobName) {
        return running.values().stream().filter(run -> run.jobName().equals(jobName)).findFirst();
    }

    private synchronized void reconcile(Job job) {
        String uid = job.getMetadata().getUid();
        if (closed || job.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        if (JobStatusWriter.finished(job)) {
            expireLater(job);
        }
        boolean suspended = Boolean.TRUE.equals(job.getSpec().getSuspend());
        JobRun run = running.get(uid);
        if (run != null) {
            if (suspended) {
                // The controller deletes a suspended Job's pods; unsuspending it later starts afresh.
                running.remove(uid);
                run.stop(true);
                new JobStatusWriter(options.client(), options.namespace()).suspended(job.getMetadata().getName());
            } else {
                run.changed(job);
            }
            return;
        }
        if (JobStatusWriter.finished(job)) {
            return;
        }
        if (suspended) {
            if (!JobStatusWriter.suspended(job)) {
                new JobStatusWriter(options.client(), options.namespace()).suspended(job.getMetadata().getName());
            }
            return;
        }
        // Pods left by an earlier runner have no processes behind them any more: gone, as with a lost node.
        for (var pod : options.client().pods().inNamespace(options.namespace()).withLabel("controller-uid", uid)
                .list().getItems()) {
            PodObjects.delete(options.client(), options.namespace(), pod.getMetadata().getName());
            PodObjects.releaseFinalizer(options.client(), options.namespace(), pod.getMetadata().getName());
        }
        JobRun fresh = new JobRun(options, job, setpriv, capacity, this::nextOrder);
        running.put(uid, fresh);
        fresh.start();
    }

    private long nextOrder() {
        return created.getAndIncrement();
    }

    /** GPU nodes added or removed (the cluster autoscaler's part): waiting pods are placed, in creation order. */
    public void gpuCapacity(int pods) {
        capacity.capacity(pods);
    }

    public int gpuCapacity() {
        return capacity.capacity();
    }

    private void expireLater(Job job) {
        Integer seconds = job.getSpec().getTtlSecondsAfterFinished();
        String uid = job.getMetadata().getUid();
        if (seconds == null || !expiring.add(uid)) {
            return;
        }
        Instant finishedAt = Instant.parse(Objects.requireNonNullElseGet(job.getStatus().getCompletionTime(),
                () -> job.getStatus().getConditions().stream().filter(c -> "Failed".equals(c.getType()))
                        .map(JobCondition::getLastTransitionTime).filter(Objects::nonNull).findFirst()
                        .orElseGet(JobStatusWriter::now)));
        long delay = Math.max(0, Duration.between(Instant.now(), finishedAt.plusSeconds(seconds)).toMillis());
        String name = job.getMetadata().getName();
        ttl.schedule(() -> {
            var jobs = options.client().batch().v1().jobs().inNamespace(options.namespace());
            Job current = jobs.withName(name).get();
            // Only the Job that finished: a new Job of the same name is not this one.
            if (current != null && uid.equals(current.getMetadata().getUid())) {
                LOG.infof("job %s: ttlSecondsAfterFinished passed, deleting it", name);
                jobs.withName(name).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
            }
        }, delay, TimeUnit.MILLISECONDS);
    }

    private synchronized void deleted(Job job) {
        expiring.remove(job.getMetadata().getUid());
        JobRun run = running.remove(job.getMetadata().getUid());
        if (run != null) {
            LOG.infof("job %s deleted: stopping its pod", job.getMetadata().getName());
            run.stop(true);
        }
    }

    /** Stops watching and stops every process of every pod (SIGTERM, then SIGKILL after each pod's grace period). */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        informer.close();
        ttl.shutdownNow();
        var runs = new ArrayList<>(running.values());
        running.clear();
        runs.parallelStream().forEach(run -> run.stop(false));
    }
}
