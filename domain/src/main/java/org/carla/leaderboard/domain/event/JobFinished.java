package org.carla.leaderboard.domain.event;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonIgnore;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The run's Job ended: it completed, failed (with Kubernetes' reason, e.g. {@code BackoffLimitExceeded} or
 * {@code DeadlineExceeded}), or was deleted before finishing (by job-launcher for a cancelled run, or by someone
 * else). The final status is decided by results-relay; this event says the Job is over and how each container fared.
 *
 * @param startedAt  when the run's pod started running; {@code null} when it never did (deleted while Pending)
 * @param finishedAt when the Job ended
 */
@RegisterForReflection
public record JobFinished(int version, SubmissionIdentity submission, int run, String jobName, Outcome outcome,
        String reason, int workerPairs, Instant startedAt, Instant finishedAt, List<ContainerOutcome> containers,
        Instant at) implements SubmissionEvent {

    public static final String TYPE = "job-finished";
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
        Require.present(at, "at");
    }

    public static JobFinished of(SubmissionIdentity submission, int run, String jobName, Outcome outcome,
            String reason, int workerPairs, Instant startedAt, Instant finishedAt, List<ContainerOutcome> containers,
            Instant at) {
        return new JobFinished(EventCodec.VERSION, submission, run, jobName, outcome, reason, workerPairs, startedAt,
                finishedAt, containers, at);
    }

    @Override
    @JsonIgnore
    public String type() {
        return TYPE;
    }

    /**
     * One container of the Job's last pod: how often it restarted, how it last ended ({@code null}: running; a
     * container that never started gives the kubelet's waiting reason, e.g. {@code ErrImagePull}), when it last ended
     * ({@code null}: it has not), its image, and the kubelet's or runtime's message about that last state, if any.
     */
    @RegisterForReflection
    public record ContainerOutcome(String name, int restartCount, Integer lastExitCode, String lastReason,
            Instant finishedAt, String image, String message) {

        /** The kubelet's waiting reasons for a container whose image cannot be had. */
        public static final Set<String> PULL_FAILURES = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName",
                "ErrImageNeverPull");

        public ContainerOutcome {
            Require.text(name, "name");
        }

        public ContainerOutcome(String name, int restartCount, Integer lastExitCode, String lastReason) {
            this(name, restartCount, lastExitCode, lastReason, null, null, null);
        }

        public ContainerOutcome(String name, int restartCount, Integer lastExitCode, String lastReason,
                Instant finishedAt) {
            this(name, restartCount, lastExitCode, lastReason, finishedAt, null, null);
        }

        /** It never ran: its image could not be pulled. */
        public boolean imageNotPulled() {
            return lastReason != null && PULL_FAILURES.contains(lastReason);
        }
    }
}
