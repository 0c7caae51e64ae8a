package org.carla.leaderboard.domain.event;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonIgnore;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The submission's Job ended: it completed, failed (with Kubernetes' reason, e.g. {@code BackoffLimitExceeded} or
 * {@code DeadlineExceeded}), or disappeared before finishing. The final status is decided by results-relay from the
 * status files; this event says the Job is over and how each container fared.
 */
@RegisterForReflection
public record JobFinished(int version, SubmissionIdentity submission, String jobName, Outcome outcome,
        String reason, int workerPairs, Instant startedAt, Instant finishedAt, List<ContainerOutcome> containers,
        Instant at) implements SubmissionEvent {

    public static final String TYPE = "job-finished";

    public enum Outcome {
        SUCCEEDED,
        FAILED,
        DELETED
    }

    public JobFinished {
        Require.version(version);
        Require.present(submission, "submission");
        Require.text(jobName, "job_name");
        Require.present(outcome, "outcome");
        Require.atLeast(workerPairs, 1, "worker_pairs");
        containers = containers == null ? List.of() : List.copyOf(containers);
        Require.present(at, "at");
    }

    public static JobFinished of(SubmissionIdentity submission, String jobName, Outcome outcome, String reason,
            int workerPairs, Instant startedAt, Instant finishedAt, List<ContainerOutcome> containers, Instant at) {
        return new JobFinished(EventCodec.VERSION, submission, jobName, outcome, reason, workerPairs, startedAt,
                finishedAt, containers, at);
    }

    @Override
    @JsonIgnore
    public String type() {
        return TYPE;
    }

    /** One container of the Job's last pod: how often it restarted and how it last ended ({@code null}: running). */
    @RegisterForReflection
    public record ContainerOutcome(String name, int restartCount, Integer lastExitCode, String lastReason) {

        public ContainerOutcome {
            Require.text(name, "name");
        }
    }
}
