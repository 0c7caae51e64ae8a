package org.carla.leaderboard.relay.client;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The body of {@code PUT update_submission} and {@code update_partially_evaluated_submission}. {@code result} is the
 * results list as a JSON string, as EvalAI expects it; {@code metadata} is the merged checkpoint.
 */
@RegisterForReflection
record EvaluationUpdate(@JsonProperty("submission") long submission,
        @JsonProperty("challenge_phase") long challengePhase,
        @JsonProperty("submission_status") String submissionStatus,
        @JsonProperty("result") String result,
        @JsonProperty("stdout") String stdout,
        @JsonProperty("stderr") String stderr,
        @JsonProperty("metadata") JsonNode metadata) {
}
