package org.carla.leaderboard.localstack.kubernetes;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/**
 * One Job's pod, run as local processes: the scheduler's part (a pod that requests a GPU waits, unschedulable, for
 * {@link GpuCapacity}), the kubelet's part (init containers one after another, then all containers at once, restarts
 * with back-off under {@code restartPolicy: OnFailure}, the pod and container statuses) and the Job controller's part
 * for that pod (backoffLimit, {@link ActiveDeadline}, the Job's status). Every state change runs on the pod's own
 * single thread, so the pod's bookkeeping needs no locks.
 */
final class PodRun {

    private static final Logger LOG = Logger.getLogger(PodRun.class);
    private static final int DEFAULT_BACKOFF_LIMIT = 6;

    private final LocalJobRunnerOptions options;
    /** util-linux setpriv when the runner is root: each container runs as its user; empty: as the runner. */
    private final Optional<Path> setpriv;
    private final GpuCapacity capacity;
    private final long order;
    private final JobStatusWriter writer;
    private final Job job;
    private final String jobName;
    private final String podName;
    private final boolean needsGpu;
    private final List<ContainerRun> initContainers = new ArrayList<>();
    private final List<ContainerRun> containers = new ArrayList<>();
    private final ScheduledExecutorService thread;
    private final ActiveDeadline deadline;
    private final PodConditions conditions = new PodConditions();
    private PodLayout layout;
    private Pod pod;
    private String scheduledAt;
    private boolean initDone;
    private boolean finished;
    private boolean ready;

    /** {@code order}: the pod's place in creation order, which is the order it gets a GPU node in. */
    PodRun(LocalJobRunnerOptions options, Job job, Optional<Path> setpriv, GpuCapacity capacity, long order) {
        this.options = options;
        this.setpriv = setpriv;
        this.capacity = capacity;
        this.order = order;
        this.writer = new JobStatusWriter(options.client(), options.namespace());
        this.job = job;
        this.jobName = job.getMetadata().getName();
        this.podName = PodObjects.podName(jobName);
        PodSpec spec = job.getSpec().getTemplate().getSpec();
        this.needsGpu = capacity.requestedBy(spec);
        Objects.requireNonNullElse(spec.getInitContainers(), List.<Container>of())
                .forEach(container -> initContainers.add(new ContainerRun(container, true)));
        Objects.requireNonNullElse(spec.getContainers(), List.<Container>of())
                .forEach(container -> containers.add(new ContainerRun(container, false)));
        var executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread t = new Thread(runnable, "job-" + jobName);
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        this.thread = executor;
        this.deadline = new ActiveDeadline(thread, () -> {
            if (!finished) {
                fail(JobStatusWriter.DEADLINE_EXCEEDED, "Job was active longer than specified deadline");
            }
        });
    }

    String uid() {
        return job.getMetadata().getUid();
    }

    String jobName() {
        return jobName;
    }

    /** Every live process of the pod's containers, re-parented ones included (any thread may ask). */
    List<ProcessHandle> processes() {
        List<ProcessHandle> handles = new ArrayList<>();
        ContainerProcesses.find(mains(allContainers())).values().forEach(handles::addAll);
        return handles;
    }

    /** The main process of each container that has one now, by run id. */
    private static Map<String, ProcessHandle> mains(List<ContainerRun> containers) {
        Map<String, ProcessHandle> mains = new LinkedHashMap<>();
        for (ContainerRun container : containers) {
            Process process = container.process;
            String runId = container.runId;
            if (process != null && runId != null) {
                mains.put(runId, process.toHandle());
            }
        }
        return mains;
    }

    /**
     * SIGKILL to every process of one running container at once, as the OOM killer (with {@code reason} OOMKilled)
     * or an eviction does; its restart policy applies as to any failure. False when it is not running.
     */
    boolean kill(String containerName, String reason) {
        try {
            return thread.submit(() -> {
                for (ContainerRun container : allContainers()) {
                    Process process = container.process;
                    if (container.name().equals(containerName) && process != null && process.isAlive()) {
                        container.killReason = reason;
                        LOG.infof("job %s: killing container %s (%s)", jobName, containerName, reason);
                        ContainerProcesses.kill(container.runId, process.toHandle());
                        return true;
                    }
                }
                return false;
            }).get(30, TimeUnit.SECONDS);
        } catch (RejectedExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("job " + jobName + ": killing " + containerName + " failed", e);
        }
    }

    /** The Job's {@code spec.activeDeadlineSeconds} as it is now (the launcher may patch it on the live Job). */
    void deadlineChanged(Long seconds) {
        try {
            thread.execute(() -> deadline.change(seconds));
        } catch (RejectedExecutionException e) {
            // the pod has ended: no deadline left to move
        }
    }

    private List<ContainerRun> allContainers() {
        List<ContainerRun> all = new ArrayList<>(initContainers);
        all.addAll(containers);
        return all;
    }

    void start() {
        thread.execute(this::begin);
    }

    /**
     * Stops the pod's processes (SIGTERM to each main process, SIGKILL to all after the pod's grace period) and waits
     * for them; with {@code deletePod} also removes the Pod object, as the garbage collector does for a deleted Job.
     */
    void stop(boolean deletePod) {
        try {
            thread.submit(() -> {
                finished = true;
                deadline.cancel();
                stopProcesses();
                if (deletePod && pod != null) {
                    deletePod();
                }
            }).get(gracePeriod().plusSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The pod had already ended (its thread is gone with its processes): only the object is left.
            if (deletePod) {
                deletePod();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.errorf(e, "job %s: stopping its pod failed", jobName);
        } finally {
            thread.shutdownNow();
            capacity.release(podName);
        }
    }

    private void deletePod() {
        options.client().pods().inNamespace(options.namespace()).withName(podName).delete();
    }

    /** The pod has ended: its GPU node is free, its thread goes, dropping any restart or deadline still scheduled. */
    private void release() {
        capacity.release(podName);
        thread.shutdown();
    }

    /** The Job controller's part: the Job active with its start time and deadline, the pod created, then placed. */
    private void begin() {
        try {
            Job started = writer.started(jobName);
            if (started == null) {
                return;
            }
            // The deadline first, from the Job's start: Pending time counts, and a pod never placed still ends.
            deadline.arm(Instant.parse(started.getStatus().getStartTime()), started.getSpec().getActiveDeadlineSeconds());
            pod = options.client().pods().inNamespace(options.namespace())
                    .resource(PodObjects.newPod(job, podName, options.namespace())).create();
            // The API server's part on create (this one stores no status from the request): phase Pending.
            pod.setStatus(new PodStatus());
            pod.getStatus().setPhase("Pending");
            writer.podStatus(pod);
            if (needsGpu && !capacity.admit(order, podName, this::placed)) {
                LOG.infof("job %s: pod %s is Pending, unschedulable (%s)", jobName, podName, capacity);
                publish();
                return;
            }
            bind();
        } catch (RuntimeException e) {
            // As when the controller cannot create the pod: the Job stays active until its deadline; the log says why.
            LOG.errorf("job %s: cannot create its pod: %s", jobName, e.getMessage());
        }
    }

    /** The scheduler found it a GPU node (called from another pod's thread); false when this pod has ended. */
    private boolean placed() {
        try {
            thread.execute(this::bind);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** The scheduler binds the pod to the node; the kubelet acknowledges it, prepares its volumes, runs it. */
    private void bind() {
        if (finished) {
            return;
        }
        try {
            pod = options.client().pods().inNamespace(options.namespace()).withName(podName).edit(bound -> {
                bound.getSpec().setNodeName(PodObjects.NODE_NAME);
                return bound;
            });
            scheduledAt = JobStatusWriter.now();
            layout = new PodLayout(options.workRoot(), jobName, job.getSpec().getTemplate().getSpec(),
                    options.podPortVariables(), setpriv.isPresent());
            LOG.infof("job %s: pod %s started (%d init containers, %d containers) in %s", jobName, podName,
                    initContainers.size(), containers.size(), layout.jobFolder());
            publish();
            runInit(0);
        } catch (IOException | RuntimeException e) {
            // As when the kubelet cannot set the pod up: it stays Pending until the Job's deadline; the log says why.
            LOG.errorf("job %s: cannot run its pod: %s", jobName, e.getMessage());
        }
    }

    private void runInit(int index) {
        if (index < initContainers.size()) {
            launch(initContainers.get(index));
        } else {
            initDone = true;
            containers.forEach(this::launch);
        }
    }

    private void launch(ContainerRun container) {
        if (finished) {
            return;
        }
        ImageProfile profile = options.profiles().stream().filter(p -> p.matches(container.spec.getImage()))
                .findFirst().orElse(null);
        if (profile == null) {
            LOG.errorf("job %s: no image profile matches %s (container %s)", jobName, container.spec.getImage(),
                    container.spec.getName());
            container.state = ContainerRun.waiting("ErrImagePull",
                    "no local image profile matches " + container.spec.getImage());
            publish();
            return;
        }
        Process process;
        String runId = ContainerProcesses.runId(podName, container.name(), container.restarts);
        try {
            PodLayout.Launch launch = layout.launch(container.spec, profile, podName, PodObjects.fields(pod),
                    options.podIdentity().environment(pod, container.spec));
            container.runId = runId;
            process = ContainerProcesses.start(launch, runId, setpriv);
        } catch (IllegalArgumentException e) {
            // The kubelet's CreateContainerConfigError: nothing ran, nothing to restart; the deadline ends the Job.
            LOG.errorf("job %s: container %s is misconfigured: %s", jobName, container.name(), e.getMessage());
            container.state = ContainerRun.waiting("CreateContainerConfigError", e.getMessage());
            publish();
            return;
        } catch (IOException e) {
            LOG.errorf("job %s: container %s cannot start: %s", jobName, container.spec.getName(), e.getMessage());
            exited(container, null, 128, "StartError", e.getMessage(), JobStatusWriter.now());
            return;
        }
        container.running(process, JobStatusWriter.now());
        LOG.infof("job %s: container %s started (pid %d, restart %d)", jobName, container.spec.getName(),
                process.pid(), container.restarts);
        publish();
        process.onExit().thenAcceptAsync(done -> {
            // The main process is gone: so is the container, every process of it (its PID namespace in a cluster).
            ContainerProcesses.kill(runId, done.toHandle());
            String reason = container.killReason != null ? container.killReason
                    : done.exitValue() == 0 ? "Completed" : "Error";
            exited(container, done, done.exitValue(), reason, null, JobStatusWriter.now());
        }, thread);
    }

    private void exited(ContainerRun container, Process process, int exitCode, String reason, String message,
            String finishedAt) {
        if (finished || (process != null && container.process != process)) {
            return;
        }
        container.process = null;
        container.killReason = null;
        ContainerState terminated = container.terminated(exitCode, reason, message, finishedAt);
        LOG.infof("job %s: container %s exited with %d (%s)", jobName, container.spec.getName(), exitCode, reason);
        if (exitCode == 0) {
            container.state = terminated;
            container.succeeded = true;
            publish();
            if (container.init) {
                runInit(initContainers.indexOf(container) + 1);
            } else if (containers.stream().allMatch(c -> c.succeeded)) {
                complete();
            }
            return;
        }
        if (!"OnFailure".equals(job.getSpec().getTemplate().getSpec().getRestartPolicy())) {
            // restartPolicy Never: the pod fails; a new pod per retry is not modelled, so the Job fails with it.
            container.state = terminated;
            fail(JobStatusWriter.BACKOFF_LIMIT_EXCEEDED, "Job has reached the specified backoff limit");
            return;
        }
        int restarts = allContainers().stream().mapToInt(c -> c.restarts).sum();
        int backoffLimit = Objects.requireNonNullElse(job.getSpec().getBackoffLimit(), DEFAULT_BACKOFF_LIMIT);
        if (restarts >= backoffLimit) {
            container.state = terminated;
            fail(JobStatusWriter.BACKOFF_LIMIT_EXCEEDED, "Job has reached the specified backoff limit");
            return;
        }
        container.restarts++;
        container.lastState = terminated;
        Duration delay = backoff(container.restarts);
        container.state = ContainerRun.waiting("CrashLoopBackOff", "back-off " + delay.toMillis()
                + "ms restarting failed container=" + container.spec.getName() + " pod=" + podName);
        publish();
        thread.schedule(() -> launch(container), delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void complete() {
        finished = true;
        deadline.cancel();
        publish("Succeeded", null);
        writer.complete(jobName);
        LOG.infof("job %s: complete", jobName);
        release();
    }

    private void fail(String reason, String message) {
        finished = true;
        deadline.cancel();
        stopProcesses();
        if (scheduledAt == null && pod != null) {
            // Never placed: the controller deletes the active pod; there is nothing of it to look at.
            deletePod();
        } else {
            publish("Failed", reason);
        }
        writer.failed(jobName, reason, message);
        LOG.infof("job %s: failed (%s)", jobName, reason);
        release();
    }

    private void stopProcesses() {
        List<ContainerRun> running = allContainers().stream().filter(c -> c.process != null).toList();
        ContainerProcesses.stop(mains(running), gracePeriod());
        for (ContainerRun container : running) {
            int exitCode = container.process.isAlive() ? 137 : container.process.exitValue();
            container.state = container.terminated(exitCode, "Error", null, JobStatusWriter.now());
            container.process = null;
        }
    }

    private Duration gracePeriod() {
        Long seconds = job.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
        return Duration.ofSeconds(seconds == null ? 30 : seconds);
    }

    private Duration backoff(int restarts) {
        long base = options.backoffBase().toMillis();
        long delay = base << Math.min(restarts - 1, 20);
        return Duration.ofMillis(Math.min(delay, options.backoffMax().toMillis()));
    }

    /** Pending until placed and initialized, then Running (also while a container waits to restart). */
    private void publish() {
        boolean allRunning = !containers.isEmpty() && containers.stream().allMatch(c -> c.process != null);
        publish(scheduledAt != null && initDone ? "Running" : "Pending", null);
        if (allRunning != ready) {
            ready = allRunning;
            writer.ready(jobName, ready);
        }
    }

    private void publish(String phase, String reason) {
        if (pod == null) {
            return;
        }
        PodStatus status = new PodStatus();
        status.setPhase(phase);
        status.setReason(reason);
        boolean scheduled = scheduledAt != null;
        status.setConditions(conditions.of(new PodConditions.Facts(scheduled, capacity.unschedulableMessage(),
                initContainers.stream().filter(c -> !c.succeeded).map(ContainerRun::name).toList(),
                containers.stream().filter(c -> c.process == null).map(ContainerRun::name).toList(),
                "Succeeded".equals(phase))));
        if (scheduled) {
            // The kubelet's part, from the moment it acknowledged the pod.
            status.setHostIP("127.0.0.1");
            status.setPodIP("127.0.0.1");
            status.setStartTime(scheduledAt);
            status.setInitContainerStatuses(initContainers.stream().map(ContainerRun::status).toList());
            status.setContainerStatuses(containers.stream().map(ContainerRun::status).toList());
        }
        pod.setStatus(status);
        writer.podStatus(pod);
    }
}
