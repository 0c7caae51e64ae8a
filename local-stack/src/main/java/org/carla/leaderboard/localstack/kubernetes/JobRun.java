package org.carla.leaderboard.localstack.kubernetes;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/**
 * The Job controller's part for one Job (kubernetes pkg/controller/job/job_controller.go {@code syncJob} and
 * {@code manageJob}, indexed_job_utils.go, 1.31): the Job active with its start time and {@link ActiveDeadline}, its
 * pods ({@link PodRun}), and after each change of a pod, the controller's judgement in its order: a pod failure
 * policy's FailJob, then backoffLimit — failed pods of the whole Job beyond it, or
 * {@link JobFailureRules#pastBackoffLimitOnFailure the restart counts} reaching it —, then the deadline. A Job that
 * fails gets {@code FailureTarget}, its active pods are deleted, and {@code Failed} comes once none is terminating. A
 * pod that failed (Never), was evicted, interrupted or lost with its node is counted (unless the policy Ignores it) and
 * replaced, after the controller's pod failure back-off (one for the Job: base, doubling per failure since the last
 * success), by a pod with fresh volumes — once it is gone when only failed pods are replaced
 * ({@code podReplacementPolicy: Failed}).
 * <p>
 * A NonIndexed Job runs one pod at a time (completions 1), complete once a pod succeeded. An Indexed Job
 * ({@code completionMode: Indexed}) runs a pod per completion index: as many at once as {@code parallelism} (default 1)
 * allows out of the indexes neither succeeded nor running, lowest first; a failed pod is replaced by a pod of its
 * index; a succeeded index never runs again ({@code completedIndexes}, read back from the status when the Job starts
 * or resumes); the Job is complete once every index succeeded and no pod is active. Every decision runs on the Job's
 * own thread.
 */
final class JobRun implements PodRun.Owner {

    private static final Logger LOG = Logger.getLogger(JobRun.class);

    /** Why the Job fails, as its FailureTarget says it. */
    private record Failure(String reason, String message) {
    }

    /**
     * A pod as one sync sees it: its last published object ({@code pod}, null while it is being created) and whether
     * it is gone, read once, so that every decision of the sync agrees (as the controller's come from one look at its
     * informer's cache); a change after the look is the next sync's.
     */
    private record Seen(PodRun run, Pod pod, boolean gone) {

        /** Active: neither ended nor being deleted ({@code FilterActivePods}); a pod being created is. */
        boolean active() {
            return !gone && (pod == null || (!terminal(pod) && !terminating(pod)));
        }
    }

    private final LocalJobRunnerOptions options;
    private final Optional<Path> setpriv;
    private final GpuCapacity capacity;
    private final LongSupplier creationOrder;
    private final JobStatusWriter writer;
    private final String jobName;
    private final ScheduledExecutorService thread;
    private final ActiveDeadline deadline;
    private final List<PodRun> pods = new ArrayList<>();
    private final Set<String> counted = new HashSet<>();
    private final Set<String> released = new HashSet<>();
    private final boolean indexed;
    private volatile Job job;
    /** An Indexed Job's succeeded indexes; empty for a NonIndexed one. */
    private CompletionIndexes succeededIndexes = new CompletionIndexes();
    /** A NonIndexed Job's succeeded pods. */
    private int succeededPods;
    private int failed;
    private int failuresSinceSuccess;
    private Instant lastFailure;
    private Failure failure;
    private boolean deadlinePassed;
    private boolean finished;
    private boolean stopped;
    private ScheduledFuture<?> replacement;
    private JobStatusWriter.Counts written;

    JobRun(LocalJobRunnerOptions options, Job job, Optional<Path> setpriv, GpuCapacity capacity,
            LongSupplier creationOrder) {
        this.options = options;
        this.setpriv = setpriv;
        this.capacity = capacity;
        this.creationOrder = creationOrder;
        this.writer = new JobStatusWriter(options.client(), options.namespace());
        this.job = job;
        this.jobName = job.getMetadata().getName();
        this.indexed = PodObjects.indexed(job);
        var executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread t = new Thread(runnable, "job-" + jobName);
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.thread = executor;
        this.deadline = new ActiveDeadline(thread, () -> {
            deadlinePassed = true;
            sync();
        });
    }

    String jobName() {
        return jobName;
    }

    /**
     * The Job becomes active: its start time (kept across a runner restart, reset on a resume), an Indexed Job's
     * succeeded indexes as its status has them, its first pods.
     */
    void start() {
        execute(() -> {
            Job started = writer.started(jobName, status -> indexed
                    ? wantActive(job, CompletionIndexes.parse(status.getCompletedIndexes(), completions(job)))
                    : 1);
            if (started == null) {
                return;
            }
            job = started;
            if (indexed) {
                succeededIndexes = CompletionIndexes.parse(started.getStatus().getCompletedIndexes(),
                        completions(started));
            }
            // The deadline first, from the Job's start: Pending time counts, and a pod never placed still ends.
            deadline.arm(Instant.parse(started.getStatus().getStartTime()), started.getSpec().getActiveDeadlineSeconds());
            sync();
        });
    }

    /**
     * The Job as it is now (the launcher may patch {@code spec.activeDeadlineSeconds} on the live Job; an Indexed
     * Job's {@code parallelism} raised starts more pods).
     */
    void changed(Job current) {
        Job previous = job;
        job = current;
        execute(() -> {
            deadline.change(current.getSpec().getActiveDeadlineSeconds());
            if (indexed && (!Objects.equals(previous.getSpec().getParallelism(), current.getSpec().getParallelism())
                    || !Objects.equals(previous.getSpec().getCompletions(), current.getSpec().getCompletions()))) {
                sync();
            }
        });
    }

    @Override
    public void podChanged(PodRun pod) {
        execute(this::sync);
    }

    /** Every live process of the Job's pods. */
    List<ProcessHandle> processes() {
        List<ProcessHandle> handles = new ArrayList<>();
        podsNow().forEach(pod -> handles.addAll(pod.processes()));
        return handles;
    }

    /**
     * The pod that is on a node now, for the knobs that act on it (kill a container, lose its node, ...): the latest
     * created of those that are.
     */
    <T> Optional<T> onCurrentPod(Function<PodRun, T> action) {
        return podsNow().stream().filter(JobRun::onNode).reduce((first, second) -> second).map(action);
    }

    /** The pod of completion {@code index} that is on a node now (an Indexed Job has at most one). */
    <T> Optional<T> onPodOfIndex(int index, Function<PodRun, T> action) {
        return podsNow().stream().filter(pod -> pod.index() == index && onNode(pod))
                .reduce((first, second) -> second).map(action);
    }

    private static boolean onNode(PodRun pod) {
        Pod snapshot = pod.snapshot();
        return snapshot != null && snapshot.getStatus() != null && snapshot.getStatus().getStartTime() != null
                && !terminal(snapshot) && !pod.gone();
    }

    /**
     * Suspended (the controller deletes the active pods; its start time stays), or the Job is deleted or the runner
     * closes ({@code deletePods}: the garbage collector removes a deleted Job's pods): stops every process and the
     * Job's thread, waiting for them.
     */
    void stop(boolean deletePods) {
        List<PodRun> all;
        synchronized (this) {
            stopped = true;
            all = List.copyOf(pods);
        }
        call(() -> {
            finished = true;
            deadline.cancel();
            if (replacement != null) {
                replacement.cancel(false);
            }
            return null;
        });
        thread.shutdownNow();
        all.parallelStream().forEach(pod -> pod.stop(deletePods));
    }

    // The controller's sync

    private void sync() {
        if (finished) {
            return;
        }
        Job current = job;
        List<Seen> view = podsNow().stream().map(pod -> new Seen(pod, pod.snapshot(), pod.gone())).toList();
        List<Pod> seen = new ArrayList<>();
        for (Seen pod : view) {
            if (pod.pod() != null) {
                seen.add(pod.pod());
                account(pod.run(), pod.pod(), current);
            }
        }
        if (failure == null) {
            failure = judge(current, seen);
            if (failure != null) {
                LOG.infof("job %s: fails (%s)", jobName, failure.reason());
                writer.failureTarget(jobName, failure.reason(), failure.message(), counts(view, 0));
                if (replacement != null) {
                    replacement.cancel(false);
                    replacement = null;
                }
            }
        }
        if (failure != null) {
            // The controller deletes the active pods at each sync while the Job is failing (a pod still being
            // created is deleted once it is).
            view.stream().filter(Seen::active).map(Seen::run).forEach(PodRun::delete);
            if (seen.stream().noneMatch(JobRun::terminating) && view.stream().noneMatch(Seen::active)) {
                finish(() -> writer.failed(jobName, failure.reason(), failure.message(), counts(view, 0)), "failed ("
                        + failure.reason() + ")");
            } else {
                write(counts(view, 0));
            }
            return;
        }
        if (complete(current, view, seen)) {
            finish(() -> writer.complete(jobName, counts(view, 0)), "complete");
            return;
        }
        int created = manage(current, view, seen);
        write(counts(view, created));
    }

    /**
     * Complete: a NonIndexed Job once a pod succeeded, an Indexed Job once its succeeded indexes reach
     * {@code completions}; either once no pod is active.
     */
    private boolean complete(Job current, List<Seen> view, List<Pod> seen) {
        if (view.stream().anyMatch(Seen::active)) {
            return false;
        }
        return indexed ? succeededIndexes.total() >= completions(current)
                : seen.stream().anyMatch(pod -> "Succeeded".equals(pod.getStatus().getPhase()));
    }

    /** The controller's failure checks, in its order; null while the Job goes on. */
    private Failure judge(Job current, List<Pod> seen) {
        for (Pod pod : seen) {
            if (JobFailureRules.isPodFailed(pod, current)) {
                Optional<String> failJob = JobFailureRules.match(current.getSpec().getPodFailurePolicy(), pod)
                        .failJobMessage();
                if (failJob.isPresent()) {
                    return new Failure("PodFailurePolicy", failJob.get());
                }
            }
        }
        if (failed > JobFailureRules.backoffLimit(current) || JobFailureRules.pastBackoffLimitOnFailure(current, seen)) {
            return new Failure(JobStatusWriter.BACKOFF_LIMIT_EXCEEDED, "Job has reached the specified backoff limit");
        }
        if (deadlinePassed) {
            return new Failure(JobStatusWriter.DEADLINE_EXCEEDED, "Job was active longer than specified deadline");
        }
        return null;
    }

    /**
     * A pod that failed is counted once (not against backoffLimit when the policy Ignores it; every pod still going
     * when the Job fails is failed), one that succeeded ends the failure streak; once the kubelet is done with it, the
     * controller removes its tracking finalizer, so a deleted pod goes.
     */
    private void account(PodRun run, Pod pod, Job current) {
        String name = pod.getMetadata().getName();
        boolean succeeded = "Succeeded".equals(pod.getStatus().getPhase());
        boolean failedPod = JobFailureRules.isPodFailed(pod, current)
                || (failure != null && !succeeded && (terminal(pod) || terminating(pod)));
        if (failedPod && counted.add(name)) {
            lastFailure = Instant.now();
            failuresSinceSuccess++;
            if (JobFailureRules.match(current.getSpec().getPodFailurePolicy(), pod).countFailed()) {
                failed++;
            }
        } else if (succeeded && counted.add(name)) {
            failuresSinceSuccess = 0;
            int index = PodObjects.completionIndex(pod);
            if (!indexed) {
                succeededPods++;
            } else if (index != PodObjects.NO_INDEX && index < completions(current)) {
                succeededIndexes.add(index);
            }
        }
        if (terminal(pod) && released.add(name)) {
            run.release();
        }
    }

    /**
     * The controller's {@code manageJob}: as many pods as wanted ({@code wantActive}) less the active ones — and the
     * terminating ones when only failed pods are replaced — are created, after the controller's pod failure back-off
     * (base, doubling per failure since the last success, to the maximum; the Job is synced again once it has
     * passed). A NonIndexed Job wants one pod; an Indexed Job a pod for each index left, at most {@code parallelism},
     * each new pod taking the lowest index that neither succeeded nor has a pod active (or terminating, as above).
     * Returns how many pods it created.
     */
    private int manage(Job current, List<Seen> view, List<Pod> seen) {
        if (stopped || replacement != null) {
            return 0;
        }
        List<PodRun> active = view.stream().filter(Seen::active).map(Seen::run).toList();
        boolean onlyFailed = JobFailureRules.onlyReplaceFailedPods(current);
        List<Pod> terminating = onlyFailed ? seen.stream().filter(JobRun::terminating).toList() : List.of();
        int want = indexed ? wantActive(current, succeededIndexes) : 1;
        int missing = want - terminating.size() - active.size();
        if (missing <= 0) {
            return 0;
        }
        Duration wait = Duration.ZERO;
        if (lastFailure != null && failuresSinceSuccess > 0) {
            long backoff = options.backoffBase().toMillis() << Math.min(failuresSinceSuccess - 1, 20);
            wait = Duration.ofMillis(Math.min(backoff, options.backoffMax().toMillis()))
                    .minus(Duration.between(lastFailure, Instant.now()));
        }
        if (wait.toMillis() > 0) {
            LOG.infof("job %s: %d pod(s) missing, new ones in %d ms", jobName, missing, wait.toMillis());
            replacement = thread.schedule(() -> {
                replacement = null;
                sync();
            }, wait.toMillis(), TimeUnit.MILLISECONDS);
            return 0;
        }
        if (!indexed) {
            return createPod(PodObjects.NO_INDEX) ? 1 : 0;
        }
        Set<Integer> busy = new HashSet<>();
        active.forEach(pod -> busy.add(pod.index()));
        terminating.forEach(pod -> busy.add(PodObjects.completionIndex(pod)));
        int created = 0;
        for (int index : succeededIndexes.firstPending(busy, missing, completions(current))) {
            created += createPod(index) ? 1 : 0;
        }
        return created;
    }

    /** An Indexed Job's {@code wantActive}: the indexes left to succeed, at most {@code parallelism} (default 1). */
    private static int wantActive(Job job, CompletionIndexes succeeded) {
        int parallelism = Objects.requireNonNullElse(job.getSpec().getParallelism(), 1);
        return Math.max(0, Math.min(completions(job) - succeeded.total(), parallelism));
    }

    /** {@code spec.completions}; the API server requires it of an Indexed Job (1 when unset, as the default). */
    private static int completions(Job job) {
        return Objects.requireNonNullElse(job.getSpec().getCompletions(), 1);
    }

    private boolean createPod(int index) {
        if (finished || stopped) {
            return false;
        }
        PodRun pod = new PodRun(options, job, setpriv, capacity, creationOrder.getAsLong(), index, this);
        LOG.infof("job %s: new pod %s%s", jobName, pod.name(), index == PodObjects.NO_INDEX ? ""
                : " (completion index " + index + ")");
        synchronized (this) {
            pods.add(pod);
        }
        pod.start();
        return true;
    }

    private void finish(Runnable status, String what) {
        finished = true;
        deadline.cancel();
        status.run();
        LOG.infof("job %s: %s", jobName, what);
        thread.shutdown();
    }

    private void write(JobStatusWriter.Counts counts) {
        if (!counts.equals(written)) {
            written = counts;
            writer.counts(jobName, counts);
        }
    }

    /**
     * The counters: active pods (a pod being created counts, as the controller counts the pods it just created),
     * ready and terminating ones, failed ones, succeeded ones (an Indexed Job's indexes, with their compressed form).
     */
    private JobStatusWriter.Counts counts(List<Seen> view, int created) {
        int active = (int) view.stream().filter(Seen::active).count() + created;
        int ready = (int) view.stream().filter(pod -> pod.active() && pod.pod() != null && ready(pod.pod())).count();
        int terminating = (int) view.stream().filter(pod -> pod.pod() != null && terminating(pod.pod())).count();
        return new JobStatusWriter.Counts(active, ready, terminating, failed,
                indexed ? succeededIndexes.total() : succeededPods, indexed ? succeededIndexes.toString() : null);
    }

    // What the controller reads of a pod

    private static boolean terminal(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** Being deleted and not ended yet ({@code CountTerminatingPods}). */
    private static boolean terminating(Pod pod) {
        return pod.getMetadata().getDeletionTimestamp() != null && !terminal(pod);
    }

    private static boolean ready(Pod pod) {
        return pod.getStatus().getConditions() != null && pod.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private synchronized List<PodRun> podsNow() {
        return List.copyOf(pods);
    }

    private void execute(Runnable work) {
        try {
            thread.execute(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    LOG.errorf(e, "job %s: the controller's sync failed", jobName);
                }
            });
        } catch (RejectedExecutionException e) {
            // the Job has ended: nothing to decide any more
        }
    }

    private void call(java.util.concurrent.Callable<?> work) {
        try {
            thread.submit(work).get(30, TimeUnit.SECONDS);
        } catch (RejectedExecutionException e) {
            // ended already
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.errorf(e, "job %s: stopping its controller failed", jobName);
        }
    }

    @Override
    public String toString() {
        return jobName + Objects.toString(failure == null ? "" : " (" + failure.reason() + ")");
    }
}
