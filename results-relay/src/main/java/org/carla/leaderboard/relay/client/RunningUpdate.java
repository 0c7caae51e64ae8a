package org.carla.leaderboard.relay.client;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** The body of {@code PATCH update_submission}: the submission runs, in this Job. */
@RegisterForReflection
record RunningUpdate(@JsonProperty("submission") long submission,
        @JsonProperty("submission_status") String submissionStatus,
        @JsonProperty("job_name") String jobName) {
}
