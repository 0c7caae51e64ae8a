package org.carla.leaderboard.localstack.kubernetes;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
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
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/**
 * One pod of a Job, run as local processes: the scheduler's part (a pod that requests a GPU waits, unschedulable, for
 * {@link GpuCapacity}) and the kubelet's (init containers one after another, then all containers at once; images that
 * cannot be pulled; restarts under {@code restartPolicy: OnFailure} with the kubelet's back-off, the first at once;
 * sidecars — init containers with {@code restartPolicy: Always} —, each started before the next init container and
 * restarted after any exit under any pod restart policy, stopped last first once the regular containers are done;
 * the pod's phase as the kubelet computes it; graceful deletion; the node lost, a node-pressure eviction, a node shut
 * down for a spot interruption). Every change runs on the pod's own single thread, so its bookkeeping needs no locks;
 * each published status is handed to the {@link Owner}, the Job controller's part ({@link JobRun}).
 */
final class PodRun {

    /** The Job controller's side: told after each status this pod published. */
    interface Owner {
        void podChanged(PodRun pod);
    }

    /** The DisruptionTarget condition and the phase a disruption leaves a pod in. */
    private record Disruption(String conditionReason, String message, String podReason) {
    }

    private static final Logger LOG = Logger.getLogger(PodRun.class);
    private static final String TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";

    private final LocalJobRunnerOptions options;
    /** util-linux setpriv when the runner is root: each container runs as its user; empty: as the runner. */
    private final Optional<Path> setpriv;
    private final GpuCapacity capacity;
    private final long order;
    private final Owner owner;
    private final JobStatusWriter writer;
    private final Job job;
    private final String jobName;
    private final String podName;
    /** The pod's completion index in an Indexed Job; {@link PodObjects#NO_INDEX} otherwise. */
    private final int index;
    /** The Pod object as the controller creates it (the template with the controller's additions). */
    private final Pod template;
    private final PodSpec podSpec;
    private final boolean restartOnFailure;
    private final boolean needsGpu;
    private final List<ContainerRun> initContainers = new ArrayList<>();
    private final List<ContainerRun> containers = new ArrayList<>();
    private final ScheduledExecutorService thread;
    private final PodConditions conditions = new PodConditions();
    private PodLayout layout;
    private Pod pod;
    private String scheduledAt;
    /** The next init container to start: init containers run one after another, a sidecar's start lets the next go. */
    private int initNext;
    private boolean initDone;
    private boolean initFailed;
    /** The kubelet is done with it: deleted, disrupted, or every container ended for good. */
    private boolean finished;
    private String deletionTimestamp;
    private Disruption disruption;
    private String terminalPhase;
    private volatile Pod published;
    private volatile boolean gone;

    /**
     * {@code order}: the pod's place in creation order, which is the order it gets a GPU node in; {@code index}: its
     * completion index in an Indexed Job, {@link PodObjects#NO_INDEX} in a NonIndexed one.
     */
    PodRun(LocalJobRunnerOptions options, Job job, Optional<Path> setpriv, GpuCapacity capacity, long order, int index,
            Owner owner) {
        this.options = options;
        this.setpriv = setpriv;
        this.capacity = capacity;
        this.order = order;
        this.owner = owner;
        this.writer = new JobStatusWriter(options.client(), options.namespace());
        this.job = job;
        this.jobName = job.getMetadata().getName();
        this.index = index;
        this.podName = PodObjects.podName(jobName, index);
        this.template = PodObjects.newPod(job, podName, options.namespace(), TRACKING_FINALIZER, index);
        this.podSpec = template.getSpec();
        PodSpec spec = podSpec;
        this.restartOnFailure = "OnFailure".equals(spec.getRestartPolicy());
        this.needsGpu = capacity.requestedBy(spec);
        Objects.requireNonNullElse(spec.getInitContainers(), List.<Container>of())
                .forEach(container -> initContainers.add(new ContainerRun(container, true)));
        Objects.requireNonNullElse(spec.getContainers(), List.<Container>of())
                .forEach(container -> containers.add(new ContainerRun(container, false)));
        var executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread t = new Thread(runnable, "pod-" + podName);
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        this.thread = executor;
    }

    String name() {
        return podName;
    }

    /** Its completion index; {@link PodObjects#NO_INDEX} for a pod of a NonIndexed Job. */
    int index() {
        return index;
    }

    /** The pod as last published: metadata (deletion included) and status; null before it was created. */
    Pod snapshot() {
        return published;
    }

    /** The object is gone from the API (its finalizer removed after it was deleted). */
    boolean gone() {
        return gone;
    }

    /** Every live process of the pod's containers, re-parented ones included (any thread may ask). */
    List<ProcessHandle> processes() {
        List<ProcessHandle> handles = new ArrayList<>();
        ContainerProcesses.find(mains(allContainers())).values().forEach(handles::addAll);
        return handles;
    }

    void start() {
        execute(this::create);
    }

    /**
     * SIGKILL to every process of one running container at once, as the OOM killer (with {@code reason} OOMKilled)
     * does; its restart policy applies as to any failure. False when it is not running.
     */
    boolean kill(String containerName, String reason) {
        return Boolean.TRUE.equals(call(() -> {
            for (ContainerRun container : allContainers()) {
                Process process = container.process;
                if (container.name().equals(containerName) && process != null && process.isAlive() && !finished) {
                    container.killReason = reason;
                    LOG.infof("job %s: killing container %s (%s)", jobName, containerName, reason);
                    ContainerProcesses.kill(container.runId, process.toHandle());
                    return true;
                }
            }
            return false;
        }));
    }

    /**
     * The node is gone (an instance reclaimed, a node that stopped answering): every process dies at once with no word
     * from a kubelet, then the pod garbage collector marks the pod Failed with {@code DisruptionTarget}
     * (DeletionByPodGC) and deletes it. False when the pod is not on a node.
     */
    boolean loseNode() {
        return disrupt(new Disruption("DeletionByPodGC", "PodGC: node no longer exists", null), Duration.ZERO, true);
    }

    /**
     * The kubelet evicts the pod for node pressure (a hard eviction: no grace): its containers are killed, the pod ends
     * Failed, reason Evicted, with {@code DisruptionTarget} (TerminationByKubelet). The object stays.
     */
    boolean evict(String resource) {
        String message = "The node was low on resource: " + resource + ".";
        return disrupt(new Disruption("TerminationByKubelet", message, "Evicted"), Duration.ZERO, false);
    }

    /**
     * The node shuts down (a spot interruption): {@code DisruptionTarget} (TerminationByKubelet), SIGTERM to every
     * container, SIGKILL to what is left after {@code grace}; the pod ends Failed, reason Terminated.
     */
    boolean interrupt(Duration grace) {
        String message = "Pod was terminated in response to imminent node shutdown.";
        return disrupt(new Disruption("TerminationByKubelet", message, "Terminated"), grace, false);
    }

    /**
     * Deleted with a grace period (the Job controller removing an active pod, a suspension): marked for deletion, its
     * containers stopped (SIGTERM, then SIGKILL after the grace period), its final status published. Runs on the pod's
     * thread; the caller does not wait.
     */
    void delete() {
        execute(() -> {
            if (deletionTimestamp != null || pod == null) {
                return;
            }
            markDeleted();
            stopProcesses(gracePeriod());
            finish(terminalPhaseOfStopped());
        });
    }

    /** The Job controller's part once it counted the pod: its tracking finalizer removed, so a deleted pod goes. */
    void release() {
        if (pod != null && !gone) {
            gone = PodObjects.releaseFinalizer(options.client(), options.namespace(), podName);
        }
    }

    /**
     * Stops the pod's processes now (SIGTERM to each main process, SIGKILL to all after the pod's grace period) and
     * waits for them; with {@code delete}, the object goes too, as the garbage collector removes a deleted Job's pods.
     */
    void stop(boolean delete) {
        call(() -> {
            finished = true;
            stopProcesses(gracePeriod());
            return null;
        });
        thread.shutdownNow();
        capacity.release(podName);
        if (layout != null) {
            layout.releasePorts();
        }
        if (delete && pod != null) {
            PodObjects.delete(options.client(), options.namespace(), podName);
            gone = PodObjects.releaseFinalizer(options.client(), options.namespace(), podName);
        }
    }

    // The scheduler's part

    /** The Job controller creates the pod: Pending, no node; then the scheduler places it, or it waits for a GPU. */
    private void create() {
        try {
            pod = options.client().pods().inNamespace(options.namespace())
                    .resource(template).create();
            // The API server's part on create (this one stores no status from the request): phase Pending.
            publish();
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
            PodObjects.bind(options.client(), options.namespace(), podName);
            pod.getSpec().setNodeName(PodObjects.NODE_NAME);
            scheduledAt = JobStatusWriter.now();
            layout = new PodLayout(options.workRoot(), jobName, podName, podSpec,
                    options.podPortVariables(), setpriv.isPresent());
            LOG.infof("job %s: pod %s started (%d init containers, %d containers) in %s", jobName, podName,
                    initContainers.size(), containers.size(), layout.podFolder());
            publish();
            runInit(0);
        } catch (IOException | RuntimeException e) {
            // As when the kubelet cannot set the pod up: it stays Pending until the Job's deadline; the log says why.
            LOG.errorf("job %s: cannot run its pod: %s", jobName, e.getMessage());
        }
    }

    // The kubelet's part

    private void runInit(int index) {
        initNext = index;
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
        String image = container.spec.getImage();
        if (profile == null || profile.pullError().isPresent()) {
            pullFailed(container, profile == null ? "no local image profile matches " + image
                    : "failed to pull and unpack image \"" + image + "\": failed to resolve reference \"" + image
                            + "\": " + profile.pullError().get());
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
        if (container.sidecar && !initDone && initContainers.indexOf(container) == initNext) {
            // A sidecar without a startup probe has started once it runs: the next init container may start.
            runInit(initNext + 1);
        }
        process.onExit().thenAcceptAsync(done -> {
            // The main process is gone: so is the container, every process of it (its PID namespace in a cluster).
            ContainerProcesses.kill(runId, done.toHandle());
            String reason = container.killReason != null ? container.killReason
                    : done.exitValue() == 0 ? "Completed" : "Error";
            exited(container, done, done.exitValue(), reason, null, JobStatusWriter.now());
        }, thread);
    }

    /**
     * The kubelet's image pull failed: {@code ErrImagePull} with the runtime's message, then {@code ImagePullBackOff}
     * until the back-off (the kubelet's, as for restarts) allows another pull, which fails again. The container never
     * starts; the others of the pod run on.
     */
    private void pullFailed(ContainerRun container, String message) {
        if (finished) {
            return;
        }
        LOG.errorf("job %s: container %s: %s", jobName, container.name(), message);
        container.state = ContainerRun.waiting("ErrImagePull", message);
        publish();
        Duration delay = backoff(++container.pulls);
        container.state = ContainerRun.waiting("ImagePullBackOff", "Back-off pulling image \""
                + container.spec.getImage() + "\"");
        publish();
        schedule(() -> launch(container), delay);
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
        container.state = terminated;
        if (container.sidecar) {
            // A sidecar is restarted whatever its exit code and the pod's restart policy.
            publish();
            restartLater(container, terminated);
            return;
        }
        if (exitCode == 0) {
            container.succeeded = true;
            publish();
            if (container.init) {
                runInit(initContainers.indexOf(container) + 1);
            } else if (containers.stream().allMatch(c -> c.succeeded)) {
                complete("Succeeded");
            }
            return;
        }
        if (!restartOnFailure) {
            // restartPolicy Never: the container stays terminated; the pod fails once nothing of it runs.
            initFailed |= container.init;
            publish();
            if (initFailed || allMainContainersEnded()) {
                complete("Failed");
            }
            return;
        }
        publish();
        restartLater(container, terminated);
    }

    /** After the kubelet's back-off (none the first time), with CrashLoopBackOff shown while it waits. */
    private void restartLater(ContainerRun container, ContainerState terminated) {
        Duration delay = restartDelay(container);
        if (!delay.isZero()) {
            container.lastState = terminated;
            container.state = ContainerRun.waiting("CrashLoopBackOff", "back-off " + delay.toMillis()
                    + "ms restarting failed container=" + container.spec.getName() + " pod=" + podName);
            publish();
        }
        schedule(() -> restart(container, terminated), delay);
    }

    /** The kubelet starts the container again: its restart count grows now, and the Job controller sees it. */
    private void restart(ContainerRun container, ContainerState failed) {
        if (finished) {
            return;
        }
        container.lastState = failed;
        container.restarts++;
        launch(container);
    }

    private boolean allMainContainersEnded() {
        return initDone && containers.stream().allMatch(c -> c.process == null && c.state.getTerminated() != null);
    }

    /**
     * The kubelet's back-off before a restart: none for the first failure, then {@code base}, doubling to {@code max}
     * (flowcontrol.Backoff: a container not in back-off restarts at once and enters it).
     */
    private Duration restartDelay(ContainerRun container) {
        return container.restarts == 0 ? Duration.ZERO : backoff(container.restarts);
    }

    private Duration backoff(int count) {
        long base = options.backoffBase().toMillis();
        long delay = base << Math.min(Math.max(count - 1, 0), 20);
        return Duration.ofMillis(Math.min(delay, options.backoffMax().toMillis()));
    }

    private boolean disrupt(Disruption what, Duration grace, boolean nodeGone) {
        return Boolean.TRUE.equals(call(() -> {
            if (finished || scheduledAt == null) {
                return false;
            }
            LOG.infof("job %s: pod %s disrupted: %s", jobName, podName, what.message());
            disruption = what;
            finished = true;
            publish();
            if (nodeGone) {
                // No kubelet to say anything: the processes die with the node, the statuses stay as last reported.
                ContainerProcesses.killAll(mains(allContainers()));
                allContainers().forEach(container -> container.process = null);
                terminalPhase = "Failed";
                markDeleted();
                end();
            } else {
                stopProcesses(grace);
                terminalPhaseOfStopped();
                finish("Failed");
            }
            return true;
        }));
    }

    /**
     * The regular containers are done and none will run again: the kubelet kills the pod, which leaves only its
     * sidecars to stop (last first), and the phase is final; the sidecars' exit codes do not count for it.
     */
    private void complete(String phase) {
        stopProcesses(gracePeriod());
        finish(phase);
    }

    /** The pod's phase is final: its node (GPU) is free, its thread goes once the status is out. */
    private void finish(String phase) {
        finished = true;
        terminalPhase = phase;
        publish();
        end();
    }

    private void end() {
        capacity.release(podName);
        if (layout != null) {
            layout.releasePorts();
        }
        thread.shutdown();
    }

    private void markDeleted() {
        deletionTimestamp = JobStatusWriter.now();
        PodObjects.delete(options.client(), options.namespace(), podName);
        publish();
    }

    /**
     * The kubelet's {@code TerminatePod}: a container without a terminated state (waiting, never started) is reported
     * terminated, ContainerStatusUnknown, 137 (the main containers only once the pod was initialized); the pod ends
     * Succeeded when every container exited 0, else Failed.
     */
    private String terminalPhaseOfStopped() {
        List<ContainerRun> reported = initDone ? allContainers() : initContainers;
        for (ContainerRun container : reported) {
            if (container.state.getTerminated() == null && (initDone || container.everStarted())) {
                container.state = container.terminated(137, "ContainerStatusUnknown",
                        "The container could not be located when the pod was terminated", JobStatusWriter.now());
            }
        }
        return initDone && containers.stream().allMatch(c -> c.state.getTerminated() != null
                && c.state.getTerminated().getExitCode() == 0) ? "Succeeded" : "Failed";
    }

    /**
     * The kubelet's {@code killPod}: SIGTERM to the regular containers (and a running init container) at once, then to
     * each sidecar, last first, once those before it ended; SIGKILL to what is left when the grace period is over. With
     * no grace at all (a hard eviction's override of 0), no SIGTERM: the runtime's {@code StopContainer} with a timeout
     * of 0 sends SIGKILL alone (containerd's CRI {@code stopContainer}), so every container ends 137.
     */
    private void stopProcesses(Duration grace) {
        finished = true;
        if (grace.isZero()) {
            List<ContainerRun> running = allContainers().stream().filter(c -> c.process != null).toList();
            if (!running.isEmpty()) {
                ContainerProcesses.killAll(mains(running));
                recordStopped(running);
            }
            return;
        }
        long deadline = System.nanoTime() + grace.toNanos();
        stopNow(allContainers().stream().filter(c -> c.process != null && !c.sidecar).toList(), deadline);
        for (int index = initContainers.size() - 1; index >= 0; index--) {
            ContainerRun sidecar = initContainers.get(index);
            if (sidecar.sidecar && sidecar.process != null) {
                stopNow(List.of(sidecar), deadline);
            }
        }
    }

    private static void stopNow(List<ContainerRun> running, long deadline) {
        if (running.isEmpty()) {
            // nothing to signal, and no look through /proc for processes of no container
            return;
        }
        ContainerProcesses.stop(mains(running), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        recordStopped(running);
    }

    private static void recordStopped(List<ContainerRun> running) {
        for (ContainerRun container : running) {
            int exitCode = container.process.isAlive() ? 137 : container.process.exitValue();
            container.state = container.terminated(exitCode, exitCode == 0 ? "Completed" : "Error", null,
                    JobStatusWriter.now());
            container.process = null;
        }
    }

    private Duration gracePeriod() {
        Long seconds = job.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
        return Duration.ofSeconds(seconds == null ? 30 : seconds);
    }

    // Status

    /**
     * The kubelet's {@code getPhase}: Pending until placed and initialized and while a container has never started
     * (an image that cannot be pulled, a misconfigured container); Running once every container started and one runs
     * (or waits to restart under OnFailure); Succeeded or Failed when it ended.
     */
    private String phase() {
        if (terminalPhase != null) {
            return terminalPhase;
        }
        if (scheduledAt == null || !initDone) {
            return "Pending";
        }
        // every container started once: running, ended, or waiting to restart (OnFailure; Never ends the pod)
        return containers.stream().anyMatch(ContainerRun::waitingToStart) ? "Pending" : "Running";
    }

    private void publish() {
        if (pod == null) {
            return;
        }
        String phase = phase();
        PodStatus status = new PodStatus();
        status.setPhase(phase);
        boolean scheduled = scheduledAt != null;
        List<PodCondition> podConditions = new ArrayList<>(conditions.of(new PodConditions.Facts(scheduled,
                capacity.unschedulableMessage(),
                initContainers.stream().filter(c -> c.sidecar ? !initDone && c.process == null : !c.succeeded)
                        .map(ContainerRun::name).toList(),
                allContainers().stream().filter(c -> (c.sidecar || !c.init) && c.process == null)
                        .map(ContainerRun::name).toList(),
                "Succeeded".equals(phase))));
        if (disruption != null) {
            podConditions.add(0, conditions.disruptionTarget(disruption.conditionReason(), disruption.message()));
            if (disruption.podReason() != null && terminalPhase != null) {
                status.setReason(disruption.podReason());
                status.setMessage(disruption.message());
            }
        }
        status.setConditions(podConditions);
        if (scheduled) {
            // The kubelet's part, from the moment it acknowledged the pod.
            status.setHostIP("127.0.0.1");
            status.setPodIP("127.0.0.1");
            status.setStartTime(scheduledAt);
            status.setInitContainerStatuses(initContainers.stream().map(ContainerRun::status).toList());
            status.setContainerStatuses(containers.stream().map(ContainerRun::status).toList());
        }
        pod.setStatus(status);
        pod.getMetadata().setDeletionTimestamp(deletionTimestamp);
        if (!gone) {
            writer.podStatus(pod);
        }
        published = new PodBuilder(pod).build();
        owner.podChanged(this);
    }

    // Threads

    private List<ContainerRun> allContainers() {
        List<ContainerRun> all = new ArrayList<>(initContainers);
        all.addAll(containers);
        return all;
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

    private void execute(Runnable work) {
        try {
            thread.execute(work);
        } catch (RejectedExecutionException e) {
            // the pod has ended: nothing of it runs any more
        }
    }

    private void schedule(Runnable work, Duration delay) {
        try {
            thread.schedule(work, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // the pod has ended meanwhile
        }
    }

    /** Runs on the pod's thread and waits for it; null when the pod has ended. */
    private <T> T call(Callable<T> work) {
        try {
            return thread.submit(work).get(gracePeriod().plusSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("job " + jobName + ": pod " + podName + " did not answer", e);
        }
    }
}
