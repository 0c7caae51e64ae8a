package org.carla.leaderboard.localstack.kubernetes;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/**
 * One Job's pod, run as local processes: the kubelet's part (init containers one after another, then all containers
 * at once, restarts with back-off under {@code restartPolicy: OnFailure}, the container statuses) and the Job
 * controller's part for that pod (backoffLimit, activeDeadlineSeconds, the Job's status). Every state change runs on
 * the pod's own single thread, so the pod's bookkeeping needs no locks.
 */
final class PodRun {

    private static final Logger LOG = Logger.getLogger(PodRun.class);
    private static final String SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int DEFAULT_BACKOFF_LIMIT = 6;

    private final LocalJobRunnerOptions options;
    private final JobStatusWriter writer;
    private final Job job;
    private final String jobName;
    private final String podName;
    private final List<ContainerRun> initContainers = new ArrayList<>();
    private final List<ContainerRun> containers = new ArrayList<>();
    private final ScheduledExecutorService thread;
    private PodLayout layout;
    private Pod pod;
    private ScheduledFuture<?> deadline;
    private boolean finished;
    private boolean ready;

    /** The kubelet's view of one container. */
    private static final class ContainerRun {
        final Container spec;
        final boolean init;
        int restarts;
        Process process;
        ContainerState state = waiting("PodInitializing", null);
        ContainerState lastState = new ContainerState();
        String startedAt;
        boolean succeeded;

        ContainerRun(Container spec, boolean init) {
            this.spec = spec;
            this.init = init;
        }
    }

    PodRun(LocalJobRunnerOptions options, Job job) {
        this.options = options;
        this.writer = new JobStatusWriter(options.client(), options.namespace());
        this.job = job;
        this.jobName = job.getMetadata().getName();
        this.podName = podName(jobName);
        PodSpec spec = job.getSpec().getTemplate().getSpec();
        Objects.requireNonNullElse(spec.getInitContainers(), List.<Container>of())
                .forEach(container -> initContainers.add(new ContainerRun(container, true)));
        Objects.requireNonNullElse(spec.getContainers(), List.<Container>of())
                .forEach(container -> containers.add(new ContainerRun(container, false)));
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "job-" + jobName);
            t.setDaemon(true);
            return t;
        });
    }

    String uid() {
        return job.getMetadata().getUid();
    }

    void start() {
        thread.execute(this::begin);
    }

    /**
     * Stops the pod's processes (SIGTERM, SIGKILL after the pod's grace period, descendants included) and waits for
     * them; with {@code deletePod} also removes the Pod object, as the garbage collector does for a deleted Job.
     */
    void stop(boolean deletePod) {
        try {
            thread.submit(() -> {
                finished = true;
                cancelDeadline();
                stopProcesses();
                if (deletePod && pod != null) {
                    options.client().pods().inNamespace(options.namespace()).withName(podName).delete();
                }
            }).get(gracePeriod().plusSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.errorf(e, "job %s: stopping its pod failed", jobName);
        } finally {
            thread.shutdownNow();
        }
    }

    private void begin() {
        try {
            layout = new PodLayout(options.workRoot(), jobName, job.getSpec().getTemplate().getSpec());
            pod = options.client().pods().inNamespace(options.namespace()).resource(newPod()).create();
            Job started = writer.started(jobName);
            if (started == null) {
                return;
            }
            scheduleDeadline(Instant.parse(started.getStatus().getStartTime()));
            LOG.infof("job %s: pod %s started (%d init containers, %d containers) in %s", jobName, podName,
                    initContainers.size(), containers.size(), layout.jobFolder());
            publish();
            runInit(0);
        } catch (IOException | RuntimeException e) {
            // Like a pod the kubelet cannot start: the Job stays active until its deadline, and the log says why.
            LOG.errorf("job %s: cannot run its pod: %s", jobName, e.getMessage());
        }
    }

    private void runInit(int index) {
        if (index < initContainers.size()) {
            launch(initContainers.get(index));
        } else {
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
            container.state = waiting("ErrImagePull", "no local image profile matches " + container.spec.getImage());
            publish();
            return;
        }
        Process process;
        try {
            PodLayout.Launch launch = layout.launch(container.spec, profile, podName);
            var builder = new ProcessBuilder(launch.argv()).directory(launch.workingDirectory().toFile())
                    .redirectErrorStream(true).redirectOutput(Redirect.appendTo(launch.logFile().toFile()))
                    .redirectInput(Redirect.from(new java.io.File("/dev/null")));
            builder.environment().clear();
            builder.environment().putAll(launch.env());
            process = builder.start();
        } catch (IOException | IllegalArgumentException e) {
            LOG.errorf("job %s: container %s cannot start: %s", jobName, container.spec.getName(), e.getMessage());
            String now = JobStatusWriter.now();
            exited(container, null, 128, "StartError", e.getMessage(), now);
            return;
        }
        container.process = process;
        container.startedAt = JobStatusWriter.now();
        container.state = new ContainerStateBuilder().withNewRunning().withStartedAt(container.startedAt).endRunning()
                .build();
        LOG.infof("job %s: container %s started (pid %d, restart %d)", jobName, container.spec.getName(),
                process.pid(), container.restarts);
        publish();
        process.onExit().thenAcceptAsync(done -> exited(container, done, done.exitValue(),
                done.exitValue() == 0 ? "Completed" : "Error", null, JobStatusWriter.now()), thread);
    }

    private void exited(ContainerRun container, Process process, int exitCode, String reason, String message,
            String finishedAt) {
        if (finished || (process != null && container.process != process)) {
            return;
        }
        container.process = null;
        ContainerState terminated = new ContainerStateBuilder().withNewTerminated().withExitCode(exitCode)
                .withReason(reason).withMessage(message).withStartedAt(container.startedAt).withFinishedAt(finishedAt)
                .endTerminated().build();
        LOG.infof("job %s: container %s exited with %d", jobName, container.spec.getName(), exitCode);
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
        int restarts = initContainers.stream().mapToInt(c -> c.restarts).sum()
                + containers.stream().mapToInt(c -> c.restarts).sum();
        int backoffLimit = Objects.requireNonNullElse(job.getSpec().getBackoffLimit(), DEFAULT_BACKOFF_LIMIT);
        if (restarts >= backoffLimit) {
            container.state = terminated;
            fail(JobStatusWriter.BACKOFF_LIMIT_EXCEEDED, "Job has reached the specified backoff limit");
            return;
        }
        container.restarts++;
        container.lastState = terminated;
        Duration delay = backoff(container.restarts);
        container.state = waiting("CrashLoopBackOff", "back-off " + delay.toMillis() + "ms restarting failed container="
                + container.spec.getName() + " pod=" + podName);
        publish();
        thread.schedule(() -> launch(container), delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void complete() {
        finished = true;
        cancelDeadline();
        publish("Succeeded", null);
        writer.complete(jobName);
        LOG.infof("job %s: complete", jobName);
    }

    private void fail(String reason, String message) {
        finished = true;
        cancelDeadline();
        stopProcesses();
        publish("Failed", reason);
        writer.failed(jobName, reason, message);
        LOG.infof("job %s: failed (%s)", jobName, reason);
    }

    private void scheduleDeadline(Instant startTime) {
        Long seconds = job.getSpec().getActiveDeadlineSeconds();
        if (seconds == null) {
            return;
        }
        long delay = Math.max(0, Duration.between(Instant.now(), startTime.plusSeconds(seconds)).toMillis());
        deadline = thread.schedule(() -> {
            if (!finished) {
                fail(JobStatusWriter.DEADLINE_EXCEEDED, "Job was active longer than specified deadline");
            }
        }, delay, TimeUnit.MILLISECONDS);
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
        }
    }

    private void stopProcesses() {
        List<ContainerRun> running = new ArrayList<>();
        initContainers.stream().filter(c -> c.process != null).forEach(running::add);
        containers.stream().filter(c -> c.process != null).forEach(running::add);
        ProcessTree.stop(running.stream().map(c -> c.process.toHandle()).toList(), gracePeriod());
        for (ContainerRun container : running) {
            int exitCode = container.process.isAlive() ? 137 : container.process.exitValue();
            container.state = new ContainerStateBuilder().withNewTerminated().withExitCode(exitCode).withReason("Error")
                    .withStartedAt(container.startedAt).withFinishedAt(JobStatusWriter.now()).endTerminated().build();
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

    private void publish() {
        boolean allRunning = !containers.isEmpty() && containers.stream().allMatch(c -> c.process != null);
        publish(allRunning || containers.stream().anyMatch(c -> c.process != null) ? "Running" : "Pending", null);
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
        status.setHostIP("127.0.0.1");
        status.setPodIP("127.0.0.1");
        status.setStartTime(pod.getMetadata().getCreationTimestamp());
        status.setInitContainerStatuses(initContainers.stream().map(this::status).toList());
        status.setContainerStatuses(containers.stream().map(this::status).toList());
        pod.setStatus(status);
        writer.podStatus(pod);
    }

    private ContainerStatus status(ContainerRun container) {
        return new ContainerStatusBuilder().withName(container.spec.getName()).withImage(container.spec.getImage())
                .withImageID("").withRestartCount(container.restarts).withState(container.state)
                .withLastState(container.lastState).withReady(container.process != null && !container.init)
                .withStarted(container.process != null)
                .withContainerID(container.process == null ? null : "local://" + container.process.pid()).build();
    }

    private Pod newPod() {
        Map<String, String> labels = new LinkedHashMap<>();
        var template = job.getSpec().getTemplate();
        if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
            labels.putAll(template.getMetadata().getLabels());
        }
        labels.put("job-name", jobName);
        labels.put("controller-uid", uid());
        labels.put("batch.kubernetes.io/job-name", jobName);
        labels.put("batch.kubernetes.io/controller-uid", uid());
        var metadata = new ObjectMetaBuilder().withName(podName).withNamespace(options.namespace()).withLabels(labels)
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("batch/v1").withKind("Job")
                        .withName(jobName).withUid(uid()).withController(true).withBlockOwnerDeletion(true).build());
        if (template.getMetadata() != null && template.getMetadata().getAnnotations() != null) {
            metadata.withAnnotations(template.getMetadata().getAnnotations());
        }
        return new PodBuilder().withMetadata(metadata.build())
                .withSpec(new io.fabric8.kubernetes.api.model.PodSpecBuilder(template.getSpec())
                        .withNodeName("localhost").build())
                .withNewStatus().withPhase("Pending").endStatus().build();
    }

    private static ContainerState waiting(String reason, String message) {
        return new ContainerStateBuilder().withNewWaiting().withReason(reason).withMessage(message).endWaiting().build();
    }

    private static String podName(String jobName) {
        var suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(SUFFIX_ALPHABET.charAt(RANDOM.nextInt(SUFFIX_ALPHABET.length())));
        }
        String prefix = jobName.length() > 57 ? jobName.substring(0, 57) : jobName;
        return prefix + "-" + suffix;
    }
}
