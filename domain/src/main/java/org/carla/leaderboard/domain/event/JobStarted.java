package org.carla.leaderboard.domain.event;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonIgnore;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The run's pod is running (not merely created: a pod Pending for GPU capacity has not started). job-launcher publishes
 * it once it sees the pod's phase Running; results-relay then marks the submission running on EvalAI and records the
 * start time.
 *
 * @param podStartedAt when the pod started running, as the kubelet reports it
 */
@RegisterForReflection
public record JobStarted(int version, SubmissionIdentity submission, int run, String jobName, Instant podStartedAt,
        Instant at) implements SubmissionEvent {

    public static final String TYPE = "job-started";

    public JobStarted {
        Require.version(version);
        Require.present(submission, "submission");
        Require.run(run);
        Require.text(jobName, "job_name");
        Require.present(podStartedAt, "pod_started_at");
        Require.present(at, "at");
    }

    public static JobStarted of(SubmissionIdentity submission, int run, String jobName, Instant podStartedAt,
            Instant at) {
        return new JobStarted(EventCodec.VERSION, submission, run, jobName, podStartedAt, at);
    }

    @Override
    @JsonIgnore
    public String type() {
        return TYPE;
    }
}
