package org.carla.leaderboard.relay.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** The part of EvalAI's submission the relay reads: its status. */
@RegisterForReflection
@JsonIgnoreProperties(ignoreUnknown = true)
record EvalAiSubmission(@JsonProperty("id") Long id, @JsonProperty("status") String status) {
}
