package org.carla.leaderboard.domain.event;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.OptBoolean;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The run's Job ended: it completed, failed (with Kubernetes' reason, e.g. {@code BackoffLimitExceeded} or
 * {@code DeadlineExceeded}), or was deleted before finishing (by job-launcher for a cancelled run, or by someone
 * else). The final status is decided by results-relay; this event says the Job is over and how each container fared.
 *
 * @param startedAt  when the run's pod started running; {@code null} when it never did (deleted while Pending)
 * @param finishedAt when the Job ended
 * @param containers each container of the Job's latest pod; of a run of several pods, of each index's latest pod
 * @param pods       every pod of the run the launcher saw, replaced ones included; empty in an event of a launcher
 *                   from before the field (it may be absent, {@link #ABSENT})
 */
@RegisterForReflection
public record JobFinished(int version, SubmissionIdentity submission, int run, String jobName, Outcome outcome,
        String reason, int workerPairs, Instant startedAt, Instant finishedAt, List<ContainerOutcome> containers,
        @JacksonInject(value = ABSENT, useInput = OptBoolean.TRUE) List<PodSpan> pods, Instant at)
        implements SubmissionEvent {

    public static final String TYPE = "job-finished";
    /**
     * The value of a field added after version 2 when an event lacks it ({@code EventCodec} injects {@code null}): an
     * event a launcher from before the field published stays readable.
     */
    public static final String ABSENT = "job-finished.absent";
    /**
     * The reason of a {@code DELETED} run whose pod waited for GPU capacity longer than job-launcher allows: the
     * relay tells the participant it never ran.
     */
    public static final String CAPACITY_WAIT_EXCEEDED = "CapacityWaitExceeded";
    /**
     * The reason of a {@code DELETED} run a container of which could not pull its image for longer than job-launcher
     * allows: the relay tells the participant which image and why ({@link ContainerOutcome#message()}).
     */
    public static final String IMAGE_PULL_FAILED = "ImagePullFailed";
    /**
     * The reason of a {@code DELETED} run of several pods some index of which ended with nothing left in the route
     * ledger while the others never ran (no node yet, and none of the Job's pods ever failed): they would find nothing
     * to claim, and the Job would wait for them.
     */
    public static final String ROUTES_DONE_BEFORE_PODS_RAN = "RoutesDoneBeforePodsRan";

    public enum Outcome {
        SUCCEEDED,
        FAILED,
        DELETED
    }

    public JobFinished {
        Require.version(version);
        Require.present(submission, "submission");
        Require.run(run);
        Require.text(jobName, "job_name");
        Require.present(outcome, "outcome");
        Require.atLeast(workerPairs, 1, "worker_pairs");
        containers = containers == null ? List.of() : List.copyOf(containers);
        pods = pods == null ? List.of() : List.copyOf(pods);
        Require.present(at, "at");
    }

    public static JobFinished of(SubmissionIdentity submission, int run, String jobName, Outcome outcome,
            String reason, int workerPairs, Instant startedAt, Instant finishedAt, List<ContainerOutcome> containers,
            Instant at) {
        return of(submission, run, jobName, outcome, reason, workerPairs, startedAt, finishedAt, containers, List.of(),
                at);
    }

    public static JobFinished of(SubmissionIdentity submission, int run, String jobName, Outcome outcome,
            String reason, int workerPairs, Instant startedAt, Instant finishedAt, List<ContainerOutcome> containers,
            List<PodSpan> pods, Instant at) {
        return new JobFinished(EventCodec.VERSION, submission, run, jobName, outcome, reason, workerPairs, startedAt,
                finishedAt, containers, pods, at);
    }

    /**
     * The completion indexes of a run of {@code runPods} pods that no pod of ever ran: empty for a run of one pod, and
     * when the event names no pods (a launcher from before {@code pods}), so every pod is then expected to have run.
     */
    public Set<Integer> indexesThatNeverRan(int runPods) {
        if (runPods < 2 || pods.isEmpty() || pods.stream().anyMatch(pod -> pod.index() == null)) {
            return Set.of();
        }
        var neverRan = new TreeSet<Integer>();
        for (int index = 0; index < runPods; index++) {
            int i = index;
            if (pods.stream().noneMatch(pod -> pod.index() == i && pod.startedAt() != null)) {
                neverRan.add(index);
            }
        }
        return Collections.unmodifiableSet(neverRan);
    }

    /** Whether the run had pods of more than one completion index (an Indexed Job of several pods). */
    public boolean severalPods() {
        return pods.stream().map(PodSpan::index).distinct().count() > 1;
    }

    @Override
    @JsonIgnore
    public String type() {
        return TYPE;
    }

    /**
     * One pod of the run: its completion index ({@code null} in a run of one pod), its name, when it started running
     * ({@code null}: it never did) and when it ended ({@code null}: it ran until the Job ended). The GPU-hours of a run
     * of several pods are counted from these ({@code GpuUsage.ofPods}).
     */
    @RegisterForReflection
    public record PodSpan(Integer index, String name, Instant startedAt, Instant endedAt) {

        public PodSpan {
            Require.text(name, "name");
            if (index != null) {
                Require.atLeast(index, 0, "index");
            }
        }
    }

    /**
     * One container of the Job's last pod: how often it restarted, how it last ended ({@code null}: running; a
     * container that never started gives the kubelet's waiting reason, e.g. {@code ErrImagePull}), when it last ended
     * ({@code null}: it has not), its image, the kubelet's or runtime's message about that last state, if any, and the
     * completion index of its pod in a run of several pods ({@code null} otherwise; absent from the events of a
     * launcher from before the field).
     */
    @RegisterForReflection
    public record ContainerOutcome(String name, int restartCount, Integer lastExitCode, String lastReason,
            Instant finishedAt, String image, String message,
            @JacksonInject(value = ABSENT, useInput = OptBoolean.TRUE) Integer pod) {

        /** The kubelet's waiting reasons for a container whose image cannot be had. */
        public static final Set<String> PULL_FAILURES = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName",
                "ErrImageNeverPull");

        public ContainerOutcome {
            Require.text(name, "name");
            if (pod != null) {
                Require.atLeast(pod, 0, "pod");
            }
        }

        public ContainerOutcome(String name, int restartCount, Integer lastExitCode, String lastReason) {
            this(name, restartCount, lastExitCode, lastReason, null, null, null, null);
        }

        public ContainerOutcome(String name, int restartCount, Integer lastExitCode, String lastReason,
                Instant finishedAt) {
            this(name, restartCount, lastExitCode, lastReason, finishedAt, null, null, null);
        }

        /** The same outcome in the pod of completion index {@code index}. */
        public ContainerOutcome inPod(Integer index) {
            return new ContainerOutcome(name, restartCount, lastExitCode, lastReason, finishedAt, image, message, index);
        }

        /** It never ran: its image could not be pulled. */
        public boolean imageNotPulled() {
            return lastReason != null && PULL_FAILURES.contains(lastReason);
        }
    }
}
