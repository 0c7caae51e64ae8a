package org.carla.leaderboard.domain.event;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonIgnore;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** job-launcher created the submission's Job (or found it already created). */
@RegisterForReflection
public record JobStarted(int version, SubmissionIdentity submission, String jobName, Instant at)
        implements SubmissionEvent {

    public static final String TYPE = "job-started";

    public JobStarted {
        Require.version(version);
        Require.present(submission, "submission");
        Require.text(jobName, "job_name");
        Require.present(at, "at");
    }

    public static JobStarted of(SubmissionIdentity submission, String jobName, Instant at) {
        return new JobStarted(EventCodec.VERSION, submission, jobName, at);
    }

    @Override
    @JsonIgnore
    public String type() {
        return TYPE;
    }
}
